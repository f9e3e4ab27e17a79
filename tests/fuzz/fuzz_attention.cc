// Fuzz target: what nmt-plot attention reads and draws (nmt/plot/attention_matrix.h,
// attention_heatmap.h).
//
// Input: an attention file, as nmt-translate --attention-output writes it (one JSON object a line).
// Checks, besides the absence of crashes:
//   - read_attention_file throws nothing but nmt::Error;
//   - what it accepted is a matrix of target x source weights in [0, 1] whose rows sum to 1 within
//     the reader's tolerance, and each hard alignment points at a largest weight of its row;
//   - merge_words gives one row per target word and one column per source word, and every merged
//     row sums to 1 within the same tolerance (a source word sums its pieces, a target word averages);
//   - every matrix with a translation (up to 48 x 48 tokens) draws, by pieces and by words, and
//     encodes as SVG and PNG without an exception.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "nmt/core/error.h"
#include "nmt/plot/attention_heatmap.h"
#include "nmt/plot/attention_matrix.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

using nmt::plot::AttentionMatrix;

// The reader's tolerance for a row of n weights (attention_matrix.cc).
double tolerance(std::size_t n) { return std::max(1e-3, 6e-7 * static_cast<double>(n)) + 1e-9; }

void check_matrix(const AttentionMatrix& m, const char* what) {
  FUZZ_CHECK(m.weights.size() == m.target.size(), std::string(what) + ": rows " + std::to_string(m.weights.size()) +
                                                      " for " + std::to_string(m.target.size()) + " target tokens");
  const std::vector<std::size_t> hard = m.hard_alignment();
  FUZZ_CHECK(hard.size() == m.weights.size(), what);
  for (std::size_t t = 0; t < m.weights.size(); ++t) {
    const auto& row = m.weights[t];
    FUZZ_CHECK(row.size() == m.source.size(), std::string(what) + ": a row of " + std::to_string(row.size()));
    double sum = 0;
    for (const double w : row) {
      FUZZ_CHECK(w >= 0 && w <= 1 + tolerance(row.size()), std::string(what) + ": weight " + std::to_string(w));
      sum += w;
    }
    FUZZ_CHECK(std::abs(sum - 1) <= tolerance(row.size()), std::string(what) + ": a row sums to " + std::to_string(sum));
    FUZZ_CHECK(hard[t] < row.size() && row[hard[t]] == *std::max_element(row.begin(), row.end()),
               std::string(what) + ": the hard alignment is not a largest weight");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static nmt::fuzz::MemoryFile file("fuzz-attention");
  file.set(nmt::fuzz::as_view(data, size));
  std::vector<AttentionMatrix> matrices;
  try {
    matrices = nmt::plot::read_attention_file(file.path());
  } catch (const nmt::Error&) {
    return 0;  // not attention output: its one-line error
  } catch (const std::exception& e) {
    FUZZ_UNEXPECTED("read_attention_file", e);
  }
  for (const AttentionMatrix& pieces : matrices) {
    check_matrix(pieces, "read");
    AttentionMatrix words;
    try {
      words = nmt::plot::merge_words(pieces);
    } catch (const std::exception& e) {
      FUZZ_UNEXPECTED("merge_words", e);
    }
    check_matrix(words, "merged");
    FUZZ_CHECK(words.source.size() <= pieces.source.size() && words.target.size() <= pieces.target.size(),
               "more words than pieces");
    if (pieces.weights.empty() || pieces.source.empty() || pieces.source.size() > 48 || pieces.target.size() > 48) {
      continue;
    }
    try {
      for (const AttentionMatrix* m : {&pieces, static_cast<const AttentionMatrix*>(&words)}) {
        const auto figure = nmt::plot::draw_attention_heatmap(*m);
        FUZZ_CHECK(!figure->encode(nmt::plot::ImageFormat::svg).empty(), "an empty SVG");
        FUZZ_CHECK(!figure->encode(nmt::plot::ImageFormat::png, 0.25).empty(), "an empty PNG");
      }
    } catch (const std::exception& e) {
      FUZZ_UNEXPECTED("drawing a matrix that read_attention_file accepted", e);
    }
  }
  return 0;
}
