// Corpus-level BLEU exactly as sacreBLEU 2.x computes it by default: the 13a (mteval-v13a)
// tokenizer, n-grams up to order 4, exponential smoothing, the closest reference length and any
// number of references. docs/evaluation.md has the details and how the numbers were checked.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nmt {

/// BLEU settings. The defaults are sacreBLEU's (`sacrebleu -m bleu`, `BLEU()`).
struct BleuOptions {
  std::string tokenize = "13a";        // "13a" (mteval-v13a rules) or "none" (split at whitespace only)
  bool lowercase = false;              // lowercase hypotheses and references first (case:lc)
  std::string smooth = "exp";          // "exp" (NIST), "none", "floor" or "add-k"
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

/// sacreBLEU's 13a tokenization of one line (UTF-8): drops "<skipped>" and "-\n", turns newlines
/// into spaces, decodes &quot; &amp; &lt; &gt;, splits off punctuation (periods and commas only
/// where not next to a digit, dashes only after a digit) and joins the tokens with single spaces.
std::string tokenize_13a(std::string_view line);

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

// Text handling with the semantics of Python 3's `str`, which sacreBLEU runs on (the chrF scorer
// uses it as well). Arguments are valid UTF-8.

/// Python's str.isspace() for one code point (ASCII whitespace, U+001C..U+001F, U+0085, U+00A0,
/// U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000).
bool is_unicode_whitespace(char32_t c);
/// Python's str.split(): the pieces between runs of whitespace, without empty ones.
std::vector<std::string_view> split_whitespace(std::string_view utf8);
/// Python's str.lower(): full Unicode lowercase mapping (Unicode 14), with Greek final sigma.
std::string lowercase_unicode(std::string_view utf8);

namespace detail {

/// Checks a scorer's input (see bleu_statistics) and returns, per sentence, the indices of its
/// non-empty reference streams; `num_refs` receives their common count, or -1 when it varies.
/// `metric` starts the error messages ("BLEU", "chrF").
std::vector<std::vector<std::size_t>> check_scorer_input(
    const char* metric, const std::vector<std::string>& hypotheses,
    const std::vector<std::vector<std::string>>& references, int& num_refs);

/// Python's `format(value, f".{decimals}f")` (correctly rounded, as printf).
std::string fixed(double value, int decimals);

/// The "version:..." field of the toolkit's signatures: "nmt-" + nmt::version().
std::string signature_version();

}  // namespace detail
}  // namespace nmt
