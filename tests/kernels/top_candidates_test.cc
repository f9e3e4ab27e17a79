#include "nmt/kernels/top_candidates.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "nmt/kernels/kernels.h"

namespace nmt {
namespace {

// Every candidate scored and sorted: the definition top_of_rows must meet.
Ranked brute_force(const std::vector<float>& values, const std::vector<float>& offset, std::int64_t vocab,
                   std::int64_t count) {
  Ranked all;
  for (std::size_t j = 0; j < values.size(); ++j) {
    const float v = offset[j / static_cast<std::size_t>(vocab)] + values[j];
    if (!std::isnan(v)) all.emplace_back(v, static_cast<std::int64_t>(j));
  }
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  if (static_cast<std::int64_t>(all.size()) > count) all.resize(static_cast<std::size_t>(count));
  return all;
}

// Random log-probabilities with many exact ties (values from a small set), over rows whose width
// is not a multiple of the 128-value blocks the scan skips: the ranking equals a full sort,
// ties in index order, for counts from 1 to more than a row holds.
TEST(TopOfRows, EqualsAFullSortWithTiesInIndexOrder) {
  std::mt19937 random(7);
  std::uniform_int_distribution<int> level(0, 40);
  for (const std::int64_t vocab : {1, 5, 127, 128, 129, 700}) {
    for (const std::int64_t rows : {1, 3, 5}) {
      std::vector<float> values(static_cast<std::size_t>(rows * vocab)), offset(static_cast<std::size_t>(rows));
      for (float& v : values) v = -0.25f * static_cast<float>(level(random));
      for (float& r : offset) r = -0.5f * static_cast<float>(level(random) % 4);
      for (const std::int64_t count : {std::int64_t{1}, std::int64_t{2}, std::int64_t{10}, rows * vocab}) {
        const std::int64_t k = std::min(count, rows * vocab);
        EXPECT_EQ(top_of_rows(values.data(), offset.data(), rows, vocab, k), brute_force(values, offset, vocab, k))
            << "vocab " << vocab << ", rows " << rows << ", count " << k;
      }
    }
  }
}

TEST(TopOfRows, SkipsNaNAndKeepsMinusInfinityLast) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> values = {nan, -1.0f, -inf, nan, -2.0f, -inf};
  const std::vector<float> offset = {0.0f, -1.0f};
  const Ranked top = top_of_rows(values.data(), offset.data(), 2, 3, 4);
  EXPECT_EQ(top, (Ranked{{-1.0f, 1}, {-3.0f, 4}, {-inf, 2}, {-inf, 5}}));
  // A row of NaN alone ranks nothing.
  EXPECT_TRUE(top_of_rows(values.data(), offset.data(), 1, 1, 1).empty());
}

// A ranking's values as bits (== would take -0 for +0) and its indices.
std::vector<std::pair<std::uint32_t, std::int64_t>> bits_of(const Ranked& ranked) {
  std::vector<std::pair<std::uint32_t, std::int64_t>> bits;
  for (const auto& [value, index] : ranked) {
    std::uint32_t b = 0;
    std::memcpy(&b, &value, sizeof b);
    bits.emplace_back(b, index);
  }
  return bits;
}

// Logits with their normalisers (log_softmax_normalisers) rank as their written log-softmax
// (log_softmax_last) ranks, bit for bit: widths around the 128-value blocks and the 16 lanes,
// values with exact ties, offsets far apart (later rows' blocks passed over on their maxima once the
// list is full) or close (the first offset -0), and rows with -inf, with a NaN (a NaN normaliser),
// of NaN everywhere, and one whose normaliser is exactly 0 (a maximum of -0, every other exp 0).
TEST(TopOfRows, FromLogitsRanksAsTheWrittenLogSoftmax) {
  std::mt19937 random(11);
  std::normal_distribution<float> normal(0.0F, 3.0F);
  for (const std::int64_t vocab : {1, 5, 17, 128, 129, 700}) {
    for (const std::int64_t rows : {1, 3, 6}) {
      for (const float spread : {0.0F, 0.5F, 12.0F}) {
        at::Tensor logits = at::empty({rows, vocab});
        float* x = logits.data_ptr<float>();
        for (std::int64_t i = 0; i < rows * vocab; ++i) x[i] = std::round(normal(random) * 4.0F) / 4.0F;
        if (rows == 6) {
          x[1 * vocab] = -std::numeric_limits<float>::infinity();
          x[2 * vocab + vocab / 2] = std::nanf("");
          for (std::int64_t w = 0; w < vocab; ++w) x[3 * vocab + w] = -200.0F;
          x[3 * vocab + vocab / 3] = -0.0F;
          for (std::int64_t w = 0; w < vocab; ++w) x[4 * vocab + w] = std::nanf("");
        }
        std::vector<float> offset(static_cast<std::size_t>(rows));
        for (std::size_t r = 0; r < offset.size(); ++r) offset[r] = -spread * static_cast<float>(r);
        const RowNormalisers n = log_softmax_normalisers(logits);
        const at::Tensor written = log_softmax_last(logits.clone());
        for (const std::int64_t count : {std::int64_t{1}, std::int64_t{2}, std::int64_t{10}, rows * vocab}) {
          const std::int64_t k = std::min(count, rows * vocab);
          EXPECT_EQ(bits_of(top_of_rows(x, n.normalisers.data(), n.block_maxima.data(), offset.data(), rows, vocab, k)),
                    bits_of(top_of_rows(written.data_ptr<float>(), offset.data(), rows, vocab, k)))
              << "vocab " << vocab << ", rows " << rows << ", spread " << spread << ", count " << k;
        }
      }
    }
  }
}

// A shortlist's rows ranked from their lists alone equal the written rows ranked whenever it says
// the lists decide it, and it says so exactly when the top `count` of the written rows lie above
// -inf: long and short lists, lists of one piece or none, values of -inf and NaN, and offsets.
TEST(TopOfListedRows, IsTopOfRowsOverTheWrittenRowsWhereTheListsDecide) {
  std::mt19937 random(11);
  std::uniform_int_distribution<int> level(0, 30);
  const std::int64_t vocab = 60;
  std::vector<std::int64_t> piece;  // the batch's pieces: every other one, so that gaps lie between
  for (std::int64_t p = 1; p < vocab; p += 2) piece.push_back(p);
  const auto k = static_cast<std::int64_t>(piece.size());
  int decided = 0, undecided = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const std::int64_t rows = 1 + trial % 4;
    std::vector<std::vector<std::int64_t>> positions(static_cast<std::size_t>(rows));
    std::vector<std::vector<float>> values(static_cast<std::size_t>(rows));
    std::vector<float> written(static_cast<std::size_t>(rows * vocab), -std::numeric_limits<float>::infinity());
    std::vector<float> offset(static_cast<std::size_t>(rows));
    for (std::int64_t r = 0; r < rows; ++r) {
      const auto at = static_cast<std::size_t>(r);
      const std::int64_t size = (trial / 4 + r * 3) % 6 == 0 ? 0 : 1 + level(random) % k;  // some empty
      for (std::int64_t p = 0; p < k; ++p) {
        if (static_cast<std::int64_t>(positions[at].size()) < size && level(random) % 3 == 0) positions[at].push_back(p);
      }
      for (std::size_t c = 0; c < positions[at].size(); ++c) {
        const int draw = level(random);
        const float v = draw == 0 ? -std::numeric_limits<float>::infinity()
                        : draw == 1 ? std::numeric_limits<float>::quiet_NaN()
                                    : -0.25f * static_cast<float>(draw);  // ties
        values[at].push_back(v);
        written[at * static_cast<std::size_t>(vocab) + static_cast<std::size_t>(piece[static_cast<std::size_t>(positions[at][c])])] = v;
      }
      offset[at] = trial % 50 == 0 ? -std::numeric_limits<float>::infinity() : -0.5f * static_cast<float>(level(random) % 4);
    }
    std::vector<ListedRow> listed;
    for (std::int64_t r = 0; r < rows; ++r) {
      listed.push_back({values[static_cast<std::size_t>(r)].data(), &positions[static_cast<std::size_t>(r)]});
    }
    for (const std::int64_t count : {std::int64_t{1}, std::int64_t{4}, std::int64_t{10}}) {
      const Ranked expected = top_of_rows(written.data(), offset.data(), rows, vocab, count);
      Ranked got;
      const bool lists_decide = top_of_listed_rows(listed, piece.data(), offset.data(), vocab, count, got);
      const bool above = static_cast<std::int64_t>(expected.size()) == count &&
                         expected.back().first > -std::numeric_limits<float>::infinity();
      EXPECT_EQ(lists_decide, above) << "trial " << trial << ", count " << count;
      if (lists_decide) {
        EXPECT_EQ(got, expected) << "trial " << trial << ", count " << count;
        ++decided;
      } else {
        ++undecided;
      }
    }
  }
  EXPECT_GT(decided, 100);  // both outcomes exercised
  EXPECT_GT(undecided, 30);
}

}  // namespace
}  // namespace nmt
