// Fuzz target: what nmt-score reads and computes (nmt/eval/scoring.h, bleu.h, chrf.h).
//
// Input: HYPOTHESES 0xFF REFERENCE [0xFF REFERENCE ...] (at most 3 references; 0xFF never occurs in
// UTF-8). Each part is written to a file and read with read_scoring_input, as nmt-score does; then
// BLEU and chrF are computed with the settings nmt-score offers (case-sensitive 13a; lowercase and
// tokenize none) and chrF++, and printed as text and JSON. Checks, besides the absence of crashes:
//   - reading throws nothing but nmt::Error; input it accepted scores without any exception;
//   - scores are finite and within [0, 100];
//   - sufficient statistics add up: those of the corpus are the sums of those of its sentences.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "nmt/core/error.h"
#include "nmt/eval/bleu.h"
#include "nmt/eval/chrf.h"
#include "nmt/eval/scoring.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

using nmt::fuzz::MemoryFile;

constexpr std::size_t kMaxReferences = 3;

void check_score(double score, const char* what) {
  FUZZ_CHECK(std::isfinite(score) && score >= 0 && score <= 100.0000001, std::string(what) + " = " + std::to_string(score));
}

// Sentence i alone: its hypothesis and its line of every reference stream.
std::vector<std::vector<std::string>> sentence_references(const nmt::ScoringInput& input, std::size_t i) {
  std::vector<std::vector<std::string>> streams;
  for (const auto& stream : input.references) streams.push_back({stream[i]});
  return streams;
}

void check_bleu_additivity(const nmt::ScoringInput& input, const nmt::BleuOptions& options) {
  const auto corpus = nmt::bleu_statistics(input.hypotheses, input.references, options);
  nmt::BleuStatistics sum;
  for (std::size_t i = 0; i < input.hypotheses.size(); ++i) {
    sum += nmt::bleu_statistics({input.hypotheses[i]}, sentence_references(input, i), options);
  }
  if (input.hypotheses.empty()) return;
  FUZZ_CHECK(sum.hypothesis_length == corpus.hypothesis_length && sum.reference_length == corpus.reference_length,
             "BLEU lengths add up over sentences");
  FUZZ_CHECK(sum.matches == corpus.matches && sum.totals == corpus.totals, "BLEU n-gram counts add up over sentences");
  FUZZ_CHECK(sum.num_refs == corpus.num_refs, "BLEU num_refs " + std::to_string(sum.num_refs) + " vs " +
                                                  std::to_string(corpus.num_refs));
}

void check_chrf_additivity(const nmt::ScoringInput& input, const nmt::ChrfOptions& options) {
  const auto corpus = nmt::chrf_statistics(input.hypotheses, input.references, options);
  nmt::ChrfStatistics sum;
  for (std::size_t i = 0; i < input.hypotheses.size(); ++i) {
    sum += nmt::chrf_statistics({input.hypotheses[i]}, sentence_references(input, i), options);
  }
  if (input.hypotheses.empty()) return;
  FUZZ_CHECK(sum.orders.size() == corpus.orders.size(), "chrF orders");
  for (std::size_t n = 0; n < sum.orders.size(); ++n) {
    FUZZ_CHECK(sum.orders[n].hypothesis == corpus.orders[n].hypothesis &&
                   sum.orders[n].reference == corpus.orders[n].reference &&
                   sum.orders[n].matches == corpus.orders[n].matches,
               "chrF counts of order " + std::to_string(n + 1) + " add up over sentences");
  }
}

void score(const nmt::ScoringInput& input) {
  for (const bool variant : {false, true}) {
    nmt::ScoringOptions options;
    options.lowercase = variant;
    options.tokenize = variant ? nmt::BleuTokenizer::none : nmt::BleuTokenizer::tok_13a;
    options.width = variant ? 20 : 2;
    const auto scores = nmt::score_corpus(input, options);
    check_score(scores.bleu->score, "BLEU");
    for (const double p : scores.bleu->precisions) check_score(p, "BLEU precision");
    check_score(scores.chrf->score, "chrF");
    (void)nmt::format_scores(scores, options);
    (void)nmt::scores_json(scores, options);
    check_bleu_additivity(input, options.bleu_options());
    check_chrf_additivity(input, options.chrf_options());
  }
  nmt::ChrfOptions chrf_plus_plus;
  chrf_plus_plus.word_order = 2;
  check_score(nmt::corpus_chrf(input.hypotheses, input.references, chrf_plus_plus).score, "chrF++");
  check_chrf_additivity(input, chrf_plus_plus);
  nmt::BleuOptions sentence;
  sentence.effective_order = true;
  sentence.smooth = nmt::BleuSmoothing::add_k;
  for (std::size_t i = 0; i < input.hypotheses.size() && i < 4; ++i) {
    std::vector<std::string> references;
    for (const auto& stream : input.references) references.push_back(stream[i]);
    check_score(nmt::sentence_bleu(input.hypotheses[i], references, sentence).score, "sentence BLEU");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static std::vector<std::unique_ptr<MemoryFile>> files;
  if (files.empty()) {
    for (std::size_t i = 0; i <= kMaxReferences; ++i) files.push_back(std::make_unique<MemoryFile>("fuzz-score"));
  }
  std::string_view input = nmt::fuzz::as_view(data, size);
  std::vector<std::string> references;
  std::size_t part = 0;
  while (true) {
    const std::size_t split = input.find('\xFF');
    files[part]->set(input.substr(0, split));
    if (part > 0) references.push_back(files[part]->path());
    ++part;
    if (split == std::string_view::npos || part > kMaxReferences) break;
    input.remove_prefix(split + 1);
  }
  nmt::ScoringInput scoring_input;
  try {
    scoring_input = nmt::read_scoring_input(files[0]->path(), references);
  } catch (const nmt::Error&) {
    return 0;  // no reference, invalid UTF-8, line counts that differ, empty references
  } catch (const std::exception& e) {
    FUZZ_UNEXPECTED("read_scoring_input", e);
  }
  try {
    score(scoring_input);
  } catch (const std::exception& e) {
    FUZZ_UNEXPECTED("scoring input that read_scoring_input accepted", e);
  }
  return 0;
}
