#include "nmt/eval/chrf.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "nmt/core/error.h"
#include "nmt/eval/metric_helpers.h"
#include "nmt/eval/unicode_text.h"

namespace nmt {
namespace {

using NgramCounts = std::unordered_map<std::string, std::int64_t>;

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// string.punctuation, the set chrF++ splits off words.
bool is_ascii_punctuation(char c) {
  return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~');
}

// Character n-grams of orders 1..max_order, over code points.
std::vector<NgramCounts> character_ngrams(const std::string& line, int max_order, bool keep_whitespace) {
  std::string text;
  if (keep_whitespace) {
    text = line;
  } else {
    for (const auto piece : split_whitespace(line)) text += piece;
  }
  std::vector<std::size_t> starts;  // byte offset of each code point, then the end
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!is_continuation(text[i])) starts.push_back(i);
  }
  const std::size_t length = starts.size();
  starts.push_back(text.size());
  std::vector<NgramCounts> counts(static_cast<std::size_t>(max_order));
  for (std::size_t n = 1; n <= counts.size() && n <= length; ++n) {
    for (std::size_t i = 0; i + n <= length; ++i) ++counts[n - 1][text.substr(starts[i], starts[i + n] - starts[i])];
  }
  return counts;
}

// sacreBLEU's CHRF._remove_punctuation (after Popović's chrF++.py): a word of more than one
// character loses a punctuation mark at its end, or else at its start, as a separate token.
std::vector<std::string> words_for_chrf(const std::string& line) {
  std::vector<std::string> words;
  for (const auto word : split_whitespace(line)) {
    const std::size_t characters = static_cast<std::size_t>(
        std::count_if(word.begin(), word.end(), [](char c) { return !is_continuation(c); }));
    if (characters == 1) {
      words.emplace_back(word);
    } else if (is_ascii_punctuation(word.back())) {
      words.emplace_back(word.substr(0, word.size() - 1));
      words.emplace_back(word.substr(word.size() - 1));
    } else if (is_ascii_punctuation(word.front())) {
      words.emplace_back(word.substr(0, 1));
      words.emplace_back(word.substr(1));
    } else {
      words.emplace_back(word);
    }
  }
  return words;
}

// Word n-grams of orders 1..max_order, as the words joined by single spaces.
std::vector<NgramCounts> word_ngrams(const std::vector<std::string>& words, int max_order) {
  std::vector<NgramCounts> counts(static_cast<std::size_t>(max_order));
  for (std::size_t n = 1; n <= counts.size() && n <= words.size(); ++n) {
    for (std::size_t i = 0; i + n <= words.size(); ++i) {
      std::string key = words[i];
      for (std::size_t k = i + 1; k < i + n; ++k) key += ' ' + words[k];
      ++counts[n - 1][key];
    }
  }
  return counts;
}

// All n-gram counters of a (preprocessed) sentence: character orders, then word orders.
std::vector<NgramCounts> all_ngrams(const std::string& line, const ChrfOptions& options) {
  auto counts = character_ngrams(line, options.char_order, options.whitespace);
  if (options.word_order > 0) {
    for (auto& order : word_ngrams(words_for_chrf(line), options.word_order)) counts.push_back(std::move(order));
  }
  return counts;
}

// sacreBLEU's CHRF._get_match_statistics, for every order.
std::vector<ChrfCounts> match_statistics(const std::vector<NgramCounts>& hypothesis,
                                         const std::vector<NgramCounts>& reference) {
  std::vector<ChrfCounts> stats(hypothesis.size());
  for (std::size_t n = 0; n < hypothesis.size(); ++n) {
    std::int64_t hypothesis_count = 0, matches = 0, reference_count = 0;
    for (const auto& [ngram, count] : hypothesis[n]) {
      hypothesis_count += count;
      const auto found = reference[n].find(ngram);
      if (found != reference[n].end()) matches += std::min(count, found->second);
    }
    for (const auto& entry : reference[n]) reference_count += entry.second;
    // Hypothesis n-grams do not count for an order the reference has none of.
    stats[n] = {reference[n].empty() ? 0 : hypothesis_count, reference_count, matches};
  }
  return stats;
}

// sacreBLEU's CHRF._compute_f_score, operation for operation.
double f_score(const std::vector<ChrfCounts>& stats, const ChrfOptions& options) {
  constexpr double eps = 1e-16;
  const double factor = static_cast<double>(options.beta) * static_cast<double>(options.beta);
  double score = 0.0, average_precision = 0.0, average_recall = 0.0;
  int effective_order = 0;
  for (const auto& order : stats) {
    const auto n_hyp = static_cast<double>(order.hypothesis);
    const auto n_ref = static_cast<double>(order.reference);
    const auto n_match = static_cast<double>(order.matches);
    const double precision = order.hypothesis > 0 ? n_match / n_hyp : eps;
    const double recall = order.reference > 0 ? n_match / n_ref : eps;
    const double denominator = factor * precision + recall;
    score += denominator > 0 ? (1 + factor) * precision * recall / denominator : eps;
    if (order.hypothesis > 0 && order.reference > 0) {
      average_precision += precision;
      average_recall += recall;
      ++effective_order;
    }
  }
  if (options.eps_smoothing) return 100 * score / static_cast<double>(options.order());
  if (effective_order == 0) return 0.0;
  average_precision /= effective_order;
  average_recall /= effective_order;
  if (average_precision + average_recall == 0) return 0.0;
  score = (1 + factor) * average_precision * average_recall;
  score /= factor * average_precision + average_recall;
  return 100 * score;
}

}  // namespace

void ChrfOptions::validate() const {
  if (char_order < 0) throw ConfigError("chrF character order must be >= 0, got " + std::to_string(char_order));
  if (word_order < 0) throw ConfigError("chrF word order must be >= 0, got " + std::to_string(word_order));
  if (char_order + word_order < 1) throw ConfigError("chrF needs a character or word order >= 1, both are 0");
  if (beta < 0) throw ConfigError("chrF beta must be >= 0, got " + std::to_string(beta));
}

ChrfStatistics& ChrfStatistics::operator+=(const ChrfStatistics& other) {
  if (orders.size() < other.orders.size()) orders.resize(other.orders.size());
  for (std::size_t n = 0; n < other.orders.size(); ++n) {
    orders[n].hypothesis += other.orders[n].hypothesis;
    orders[n].reference += other.orders[n].reference;
    orders[n].matches += other.orders[n].matches;
  }
  if (num_refs == 0) {
    num_refs = other.num_refs;
  } else if (other.num_refs != 0 && other.num_refs != num_refs) {
    num_refs = -1;
  }
  return *this;
}

std::string ChrfScore::name() const {
  return "chrF" + std::to_string(beta) + std::string(static_cast<std::size_t>(std::max(word_order, 0)), '+');
}

std::string ChrfScore::format(int width) const { return name() + " = " + detail::fixed(score, width); }

std::string ChrfScore::signature(const ChrfOptions& options) const {
  return "nrefs:" + (num_refs < 0 ? std::string("var") : std::to_string(num_refs)) +
         "|case:" + (options.lowercase ? "lc" : "mixed") + "|eff:" + (options.eps_smoothing ? "no" : "yes") +
         "|nc:" + std::to_string(options.char_order) + "|nw:" + std::to_string(options.word_order) +
         "|space:" + (options.whitespace ? "yes" : "no") + "|version:" + detail::signature_version();
}

ChrfStatistics chrf_statistics(const std::vector<std::string>& hypotheses,
                               const std::vector<std::vector<std::string>>& references, const ChrfOptions& options) {
  options.validate();
  ChrfStatistics stats;
  const auto live = detail::check_scorer_input("chrF", hypotheses, references, stats.num_refs);
  stats.orders.resize(static_cast<std::size_t>(options.order()));
  const auto preprocess = [&](const std::string& line) { return options.lowercase ? lowercase_unicode(line) : line; };
  for (std::size_t i = 0; i < hypotheses.size(); ++i) {
    const auto hypothesis = all_ngrams(preprocess(hypotheses[i]), options);
    std::vector<ChrfCounts> best;
    double best_score = -1.0;
    for (const auto r : live[i]) {
      auto candidate = match_statistics(hypothesis, all_ngrams(preprocess(references[r][i]), options));
      const double score = f_score(candidate, options);
      if (score > best_score) {
        best_score = score;
        best = std::move(candidate);
      }
    }
    for (std::size_t n = 0; n < best.size(); ++n) {
      stats.orders[n].hypothesis += best[n].hypothesis;
      stats.orders[n].reference += best[n].reference;
      stats.orders[n].matches += best[n].matches;
    }
  }
  return stats;
}

ChrfScore compute_chrf(const ChrfStatistics& statistics, const ChrfOptions& options) {
  options.validate();
  if (statistics.orders.size() != static_cast<std::size_t>(options.order()))
    throw ConfigError("chrF statistics have " + std::to_string(statistics.orders.size()) + " orders, the options " +
                      std::to_string(options.order()));
  ChrfScore result;
  result.score = f_score(statistics.orders, options);
  result.char_order = options.char_order;
  result.word_order = options.word_order;
  result.beta = options.beta;
  result.num_refs = statistics.num_refs;
  return result;
}

ChrfScore corpus_chrf(const std::vector<std::string>& hypotheses,
                      const std::vector<std::vector<std::string>>& references, const ChrfOptions& options) {
  return compute_chrf(chrf_statistics(hypotheses, references, options), options);
}

ChrfScore sentence_chrf(const std::string& hypothesis, const std::vector<std::string>& references,
                        const ChrfOptions& options) {
  std::vector<std::vector<std::string>> streams;
  for (const auto& reference : references) streams.push_back({reference});
  return corpus_chrf({hypothesis}, streams, options);
}

}  // namespace nmt
