// Corpus-level chrF and chrF++ exactly as sacreBLEU 2.x computes them: character n-grams up to
// order 6 (whitespace removed), optional word n-grams (2 for chrF++), beta 2, statistics summed over
// sentences, the best-scoring reference per sentence. docs/evaluation.md has the details.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nmt {

/// chrF settings. The defaults are sacreBLEU's (`sacrebleu -m chrf`, `CHRF()`).
struct ChrfOptions {
  int char_order = 6;          // longest character n-gram, >= 0
  int word_order = 0;          // longest word n-gram, >= 0; 2 gives chrF++
  int beta = 2;                // weight of recall against precision, >= 0
  bool lowercase = false;      // lowercase hypotheses and references first (case:lc)
  bool whitespace = false;     // keep whitespace inside character n-grams (space:yes)
  bool eps_smoothing = false;  // average per-order F-scores with epsilon smoothing (chrF++.py, NLTK,
                               // Moses; eff:no) instead of sacreBLEU's default: F-score of the
                               // precisions and recalls averaged over the orders that have n-grams
  void validate() const;       // throws ConfigError naming the option
  int order() const { return char_order + word_order; }
};

/// n-gram counts of one order.
struct ChrfCounts {
  std::int64_t hypothesis = 0;  // hypothesis n-grams (0 when the reference has none of this order)
  std::int64_t reference = 0;   // reference n-grams
  std::int64_t matches = 0;     // n-grams in common (clipped counts)
};

/// Sufficient statistics of chrF; those of sentences add up to those of their corpus.
struct ChrfStatistics {
  std::vector<ChrfCounts> orders;  // character orders 1..char_order, then word orders 1..word_order
  int num_refs = 0;                // references per sentence; -1 when it varies (empty ones are dropped)

  ChrfStatistics& operator+=(const ChrfStatistics& other);
};

struct ChrfScore {
  double score = 0;  // chrF, 0 to 100
  int char_order = 6, word_order = 0, beta = 2;
  int num_refs = 0;  // as in ChrfStatistics

  /// "chrF2", or "chrF2++" for word order 2 (one "+" per word order).
  std::string name() const;
  /// sacreBLEU's text: "chrF2 = 59.73"; `width` is the number of decimals.
  std::string format(int width = 2) const;
  /// sacreBLEU's signature with the toolkit's version:
  /// "nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:nmt-0.1.0".
  std::string signature(const ChrfOptions& options) const;
};

/// Statistics of a corpus: per sentence, those of the reference with the highest chrF (the first
/// one on a tie). `references[r][i]` is sentence i of reference stream r; inputs are checked as by
/// bleu_statistics (DataError naming the stream and line; ConfigError on invalid options).
ChrfStatistics chrf_statistics(const std::vector<std::string>& hypotheses,
                               const std::vector<std::vector<std::string>>& references,
                               const ChrfOptions& options = {});

/// The score of given statistics. Throws ConfigError.
ChrfScore compute_chrf(const ChrfStatistics& statistics, const ChrfOptions& options = {});

/// Corpus chrF: compute_chrf(chrf_statistics(...)).
ChrfScore corpus_chrf(const std::vector<std::string>& hypotheses,
                      const std::vector<std::vector<std::string>>& references,
                      const ChrfOptions& options = {});

/// chrF of one sentence against its references (one per stream).
ChrfScore sentence_chrf(const std::string& hypothesis, const std::vector<std::string>& references,
                        const ChrfOptions& options = {});

}  // namespace nmt
