#include "nmt/eval/bleu.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <unordered_map>

#include "nmt/core/error.h"
#include "nmt/eval/metric_helpers.h"
#include "nmt/eval/tokenizer_13a.h"
#include "nmt/eval/unicode_text.h"

namespace nmt {
namespace {

std::vector<std::string> tokenize(const std::string& line, const BleuOptions& options) {
  const std::string cased = options.lowercase ? lowercase_unicode(line) : line;
  // sacreBLEU strips trailing whitespace (str.rstrip()) before tokenizing; both tokenizers end with
  // str.split(), so only the 13a rules below could see it, and they see "-\n" and "\n".
  std::string text(rstrip_whitespace(cased));
  if (options.tokenize == BleuTokenizer::tok_13a) text = tokenize_13a(text);
  std::vector<std::string> tokens;
  for (const auto piece : split_whitespace(text)) tokens.emplace_back(piece);
  return tokens;
}

// ---------------------------------------------------------------------------------------------
// n-gram statistics.

using NgramCounts = std::unordered_map<std::string, std::int64_t>;

// n-grams of orders 1..max_order as their tokens joined by single spaces (tokens hold no spaces).
NgramCounts count_ngrams(const std::vector<std::string>& tokens, int max_order) {
  NgramCounts counts;
  const std::size_t size = tokens.size();
  for (std::size_t n = 1; n <= static_cast<std::size_t>(max_order) && n <= size; ++n) {
    for (std::size_t i = 0; i + n <= size; ++i) {
      std::string key = tokens[i];
      for (std::size_t k = i + 1; k < i + n; ++k) {
        key += ' ';
        key += tokens[k];
      }
      ++counts[key];
    }
  }
  return counts;
}

std::size_t order_of(const std::string& ngram) {
  return static_cast<std::size_t>(std::count(ngram.begin(), ngram.end(), ' ')) + 1;
}

// sacreBLEU's _get_closest_ref_len: the reference length closest to the hypothesis length, the
// shorter one on a tie.
std::int64_t closest_reference_length(std::int64_t hypothesis_length, const std::vector<std::int64_t>& lengths) {
  std::int64_t best_diff = -1, best = -1;
  for (const auto length : lengths) {
    const std::int64_t diff = std::llabs(hypothesis_length - length);
    if (best_diff == -1 || diff < best_diff) {
      best_diff = diff;
      best = length;
    } else if (diff == best_diff && length < best) {
      best = length;
    }
  }
  return best;
}

// Python's math.log floored as sacreBLEU's my_log does.
double floored_log(double value) { return value == 0.0 ? -9999999999.0 : std::log(value); }

}  // namespace

// -----------------------------------------------------------------------------------------------
// Options, statistics, scores.

const EnumNames<BleuTokenizer>& enum_names(BleuTokenizer) {
  static const EnumNames<BleuTokenizer> names("BLEU tokenizer",
                                              {{BleuTokenizer::tok_13a, "13a"}, {BleuTokenizer::none, "none"}});
  return names;
}

const EnumNames<BleuSmoothing>& enum_names(BleuSmoothing) {
  static const EnumNames<BleuSmoothing> names("BLEU smoothing method",
                                              {{BleuSmoothing::exp, "exp"}, {BleuSmoothing::none, "none"},
                                               {BleuSmoothing::floor, "floor"}, {BleuSmoothing::add_k, "add-k"}});
  return names;
}

void BleuOptions::validate() const {
  if (smooth_value && !(std::isfinite(*smooth_value) && *smooth_value >= 0))
    throw ConfigError("BLEU smooth value must be a finite number >= 0, got " + std::to_string(*smooth_value));
  if (max_ngram_order < 1)
    throw ConfigError("BLEU max n-gram order must be >= 1, got " + std::to_string(max_ngram_order));
}

double BleuOptions::smoothing_value() const {
  if (smooth == BleuSmoothing::floor) return smooth_value.value_or(0.1);
  if (smooth == BleuSmoothing::add_k) return smooth_value.value_or(1.0);
  return 0.0;
}

BleuStatistics& BleuStatistics::operator+=(const BleuStatistics& other) {
  if (matches.size() < other.matches.size()) matches.resize(other.matches.size(), 0);
  if (totals.size() < other.totals.size()) totals.resize(other.totals.size(), 0);
  for (std::size_t n = 0; n < other.matches.size(); ++n) matches[n] += other.matches[n];
  for (std::size_t n = 0; n < other.totals.size(); ++n) totals[n] += other.totals[n];
  hypothesis_length += other.hypothesis_length;
  reference_length += other.reference_length;
  if (num_refs == 0) {
    num_refs = other.num_refs;
  } else if (other.num_refs != 0 && other.num_refs != num_refs) {
    num_refs = -1;
  }
  return *this;
}

double BleuScore::ratio() const {
  return reference_length ? static_cast<double>(hypothesis_length) / static_cast<double>(reference_length) : 0.0;
}

std::string BleuScore::format(int width) const {
  std::string out = "BLEU = " + detail::fixed(score, width) + " ";
  for (std::size_t n = 0; n < precisions.size(); ++n) {
    if (n) out += '/';
    out += detail::fixed(precisions[n], 1);
  }
  out += " (BP = " + detail::fixed(brevity_penalty, 3) + " ratio = " + detail::fixed(ratio(), 3) +
         " hyp_len = " + std::to_string(hypothesis_length) + " ref_len = " + std::to_string(reference_length) + ")";
  return out;
}

std::string BleuScore::signature(const BleuOptions& options) const {
  std::string smooth = name_of(options.smooth);
  if (options.smooth == BleuSmoothing::floor || options.smooth == BleuSmoothing::add_k) {
    smooth += "[" + detail::fixed(options.smoothing_value(), 2) + "]";
  }
  return "nrefs:" + (num_refs < 0 ? std::string("var") : std::to_string(num_refs)) +
         "|case:" + (options.lowercase ? "lc" : "mixed") + "|eff:" + (options.effective_order ? "yes" : "no") +
         "|tok:" + name_of(options.tokenize) + "|smooth:" + smooth + "|version:" + detail::signature_version();
}

BleuStatistics bleu_statistics(const std::vector<std::string>& hypotheses,
                               const std::vector<std::vector<std::string>>& references, const BleuOptions& options) {
  options.validate();
  BleuStatistics stats;
  const auto live = detail::check_scorer_input("BLEU", hypotheses, references, stats.num_refs);
  const auto order = static_cast<std::size_t>(options.max_ngram_order);
  stats.matches.assign(order, 0);
  stats.totals.assign(order, 0);
  for (std::size_t i = 0; i < hypotheses.size(); ++i) {
    // Reference n-gram counts: the largest count of each n-gram over the references.
    NgramCounts reference_counts;
    std::vector<std::int64_t> reference_lengths;
    for (const auto r : live[i]) {
      const auto tokens = tokenize(references[r][i], options);
      reference_lengths.push_back(static_cast<std::int64_t>(tokens.size()));
      for (const auto& [ngram, count] : count_ngrams(tokens, options.max_ngram_order)) {
        auto& best = reference_counts[ngram];
        best = std::max(best, count);
      }
    }
    const auto tokens = tokenize(hypotheses[i], options);
    const auto length = static_cast<std::int64_t>(tokens.size());
    stats.hypothesis_length += length;
    stats.reference_length += closest_reference_length(length, reference_lengths);
    for (const auto& [ngram, count] : count_ngrams(tokens, options.max_ngram_order)) {
      const std::size_t n = order_of(ngram) - 1;
      stats.totals[n] += count;
      const auto found = reference_counts.find(ngram);
      if (found != reference_counts.end()) stats.matches[n] += std::min(count, found->second);
    }
  }
  return stats;
}

BleuScore compute_bleu(const BleuStatistics& statistics, const BleuOptions& options) {
  options.validate();
  const auto order = static_cast<std::size_t>(options.max_ngram_order);
  if (statistics.matches.size() != order || statistics.totals.size() != order)
    throw ConfigError("BLEU statistics have " + std::to_string(statistics.matches.size()) + " match and " +
                      std::to_string(statistics.totals.size()) + " total counts, max n-gram order is " +
                      std::to_string(order));
  BleuScore result;
  result.matches = statistics.matches;
  result.totals = statistics.totals;
  result.hypothesis_length = statistics.hypothesis_length;
  result.reference_length = statistics.reference_length;
  result.num_refs = statistics.num_refs;
  result.precisions.assign(order, 0.0);

  const auto sys_len = static_cast<double>(statistics.hypothesis_length);
  const auto ref_len = static_cast<double>(statistics.reference_length);
  if (statistics.hypothesis_length < statistics.reference_length) {
    result.brevity_penalty = statistics.hypothesis_length > 0 ? std::exp(1.0 - ref_len / sys_len) : 0.0;
  } else {
    result.brevity_penalty = 1.0;
  }
  // No match at all: 0 whatever the smoothing (sacreBLEU issue #141).
  if (std::all_of(statistics.matches.begin(), statistics.matches.end(), [](std::int64_t m) { return m == 0; }))
    return result;

  const double k = options.smoothing_value();
  double smooth_mteval = 1.0;
  std::size_t effective_order = order;
  for (std::size_t n = 0; n < order; ++n) {
    double correct = static_cast<double>(statistics.matches[n]);
    double total = static_cast<double>(statistics.totals[n]);
    if (options.smooth == BleuSmoothing::add_k && n > 0) {
      correct += k;
      total += k;
    }
    if (total == 0) break;
    if (options.effective_order) effective_order = n + 1;
    if (correct == 0) {
      if (options.smooth == BleuSmoothing::exp) {
        smooth_mteval *= 2;
        result.precisions[n] = 100.0 / (smooth_mteval * total);
      } else if (options.smooth == BleuSmoothing::floor) {
        result.precisions[n] = 100.0 * k / total;
      }
    } else {
      result.precisions[n] = 100.0 * correct / total;
    }
  }
  double log_sum = 0.0;
  for (std::size_t n = 0; n < effective_order; ++n) log_sum += floored_log(result.precisions[n]);
  result.score = result.brevity_penalty * std::exp(log_sum / static_cast<double>(effective_order));
  return result;
}

BleuScore corpus_bleu(const std::vector<std::string>& hypotheses,
                      const std::vector<std::vector<std::string>>& references, const BleuOptions& options) {
  return compute_bleu(bleu_statistics(hypotheses, references, options), options);
}

BleuScore sentence_bleu(const std::string& hypothesis, const std::vector<std::string>& references,
                        const BleuOptions& options) {
  std::vector<std::vector<std::string>> streams;
  for (const auto& reference : references) streams.push_back({reference});
  return corpus_bleu({hypothesis}, streams, options);
}

}  // namespace nmt
