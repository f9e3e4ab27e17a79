// Corpus-level BLEU exactly as sacreBLEU 2.x computes it by default: the 13a (mteval-v13a)
// tokenizer, n-grams up to order 4, exponential smoothing, the closest reference length and any
// number of references. docs/evaluation.md has the details and how the numbers were checked.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nmt/core/enum_names.h"

namespace nmt {

/// BLEU settings. The defaults are sacreBLEU's (`sacrebleu -m bleu`, `BLEU()`).
enum class BleuTokenizer {
  tok_13a,  // "13a": mteval-v13a's rules (tokenizer_13a.h)
  none,     // "none": split at whitespace only
};
const EnumNames<BleuTokenizer>& enum_names(BleuTokenizer);  // 13a, none

enum class BleuSmoothing {
  exp,    // "exp": NIST's geometric sequence
  none,   // "none"
  floor,  // "floor": zero precisions become smooth_value / total
  add_k,  // "add-k": k added to the matches and totals of orders above 1
};
const EnumNames<BleuSmoothing>& enum_names(BleuSmoothing);  // exp, none, floor, add-k

struct BleuOptions {
  BleuTokenizer tokenize = BleuTokenizer::tok_13a;
  bool lowercase = false;              // lowercase hypotheses and references first (case:lc)
  BleuSmoothing smooth = BleuSmoothing::exp;
  std::optional<double> smooth_value;  // for floor and add-k; unset: 0.1 (floor), 1 (add-k); unused otherwise
  int max_ngram_order = 4;             // longest n-gram counted, >= 1
  bool effective_order = false;        // average only the orders that have hypothesis n-grams
                                       // (sacreBLEU's sentence-level setting; eff:yes)
  void validate() const;               // throws ConfigError naming the option
  /// smooth_value, or the method's default when unset (0 for exp and none).
  double smoothing_value() const;
};

/// Sufficient statistics of BLEU; those of sentences add up to those of their corpus.
struct BleuStatistics {
  std::int64_t hypothesis_length = 0;  // hypothesis tokens
  std::int64_t reference_length = 0;   // per sentence, the reference length closest to the hypothesis
  std::vector<std::int64_t> matches;   // clipped n-gram matches per order (index 0: unigrams)
  std::vector<std::int64_t> totals;    // hypothesis n-grams per order
  int num_refs = 0;                    // references per sentence; -1 when it varies (empty ones are dropped)

  BleuStatistics& operator+=(const BleuStatistics& other);
};

struct BleuScore {
  double score = 0;                    // BLEU, 0 to 100
  std::vector<double> precisions;      // smoothed n-gram precisions in percent (index 0: unigrams)
  std::vector<std::int64_t> matches;   // sacreBLEU's `counts` (before add-k smoothing)
  std::vector<std::int64_t> totals;    // sacreBLEU's `totals` (before add-k smoothing)
  double brevity_penalty = 0;
  std::int64_t hypothesis_length = 0;  // sacreBLEU's sys_len
  std::int64_t reference_length = 0;   // sacreBLEU's ref_len
  int num_refs = 0;                    // as in BleuStatistics

  /// hypothesis_length / reference_length (0 when the references are empty).
  double ratio() const;
  /// sacreBLEU's text: "BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17
  /// ref_len = 18)"; `width` is the number of decimals of the score.
  std::string format(int width = 2) const;
  /// sacreBLEU's signature with the toolkit's version:
  /// "nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:nmt-0.1.0".
  std::string signature(const BleuOptions& options) const;
};

/// Statistics of a corpus. `references[r][i]` is sentence i of reference stream r. Every stream
/// must have as many lines as `hypotheses`; per sentence, empty references are ignored (sacreBLEU's
/// rule for a variable number of references), but at least one must remain. Throws DataError
/// (naming the stream and line) on no reference stream, a line count mismatch, a sentence without
/// any reference or invalid UTF-8; ConfigError on invalid options. An empty corpus has all-zero
/// statistics.
BleuStatistics bleu_statistics(const std::vector<std::string>& hypotheses,
                               const std::vector<std::vector<std::string>>& references,
                               const BleuOptions& options = {});

/// The score of given statistics (sacreBLEU's BLEU.compute_bleu). Throws ConfigError.
BleuScore compute_bleu(const BleuStatistics& statistics, const BleuOptions& options = {});

/// Corpus BLEU: compute_bleu(bleu_statistics(...)).
BleuScore corpus_bleu(const std::vector<std::string>& hypotheses,
                      const std::vector<std::vector<std::string>>& references,
                      const BleuOptions& options = {});

/// BLEU of one sentence against its references (one per stream). Consider effective_order = true.
BleuScore sentence_bleu(const std::string& hypothesis, const std::vector<std::string>& references,
                        const BleuOptions& options = {});

}  // namespace nmt
