// Options and results shared by the search strategies (greedy_search, beam_search).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "nmt/core/enum_names.h"

namespace nmt {

/// How a finished hypothesis' summed log-probability r is normalised by its length |Y| (EOS counted):
/// s = r / lp(|Y|). See nmt/search/penalties.h for the formulas.
enum class LengthPenalty {
  none,     // lp = 1: raw log-probability, favours short outputs
  average,  // lp = |Y|: mean log-probability per token
  gnmt,     // lp = ((5 + |Y|) / 6)^alpha (Wu et al. 2016, eq. 14)
};

const EnumNames<LengthPenalty>& enum_names(LengthPenalty);  // none, average, gnmt

/// Bounds of the length limit's options: a limit beyond them is a typo, and a*n + b must not overflow.
constexpr double kMaxLengthA = 1000;
constexpr std::int64_t kMaxLengthB = 1000000;
constexpr std::int64_t kMaxTargetLength = 1000000;  // max_length() never exceeds this

/// Every field is an entry of for_each_search_option (nmt/search/search_option_table.h): its flag,
/// request field, help and request bounds are written there, and operator== compares them.
struct SearchOptions {
  double max_length_a = 2.0;        // at most a * n + b target tokens for n source subwords
  std::int64_t max_length_b = 10;
  std::int64_t min_length = 0;      // EOS is not allowed before this many tokens
  bool keep_attention = false;      // return each hypothesis' attention matrix
  std::int64_t beam_size = 5;       // k: live hypotheses per sentence (beam search only)
  std::int64_t n_best = 1;          // n: hypotheses returned per sentence, 1 <= n <= k (beam search only)
  LengthPenalty length_penalty = LengthPenalty::gnmt;  // beam search ranking; greedy ignores it
  double length_alpha = 0.6;        // alpha of the gnmt penalty (Wu et al. found 0.6-0.7 best)
  double coverage_beta = 0;         // beta of the coverage penalty (0: off; beam search only)
  std::int64_t no_repeat_ngram = 0; // N > 0: no n-gram of N tokens twice in a hypothesis (0: off)
  /// The model's context is the one source state with the largest weight (the Translator hardens
  /// the model, nmt/model/attention_hardening.h; search itself does not read it).
  bool hard_attention = false;

  void validate() const;  // throws ConfigError naming the option, e.g. "beam-size must be >= 1, got 0"
  /// Throws ConfigError when an option needs attention weights (keep_attention, coverage_beta,
  /// hard_attention) and the model has none (attention = none).
  void require_attention_if_used(bool model_has_attention) const;
  /// The most target tokens for a source of `source_length` subwords (EOS not counted):
  /// min(kMaxTargetLength, max(1, floor(a * n) + b)).
  std::int64_t max_length(std::int64_t source_length) const;
};

/// Every option equal (nmt-serve batches sentences together only then).
bool operator==(const SearchOptions& a, const SearchOptions& b);
inline bool operator!=(const SearchOptions& a, const SearchOptions& b) { return !(a == b); }

struct Hypothesis {
  std::vector<int> tokens;  // target subword ids, without EOS
  double score = 0;         // final score s = log_prob / lp(|Y|) + cp (greedy: s = log_prob)
  double log_prob = 0;      // r: float32 sum of the log-probabilities of the tokens and the final EOS
  bool finished = false;    // ended with EOS (false: stopped at the length limit)
  at::Tensor attention;     // [steps, src_len] on the CPU when requested: one row per token (+ EOS)
};

}  // namespace nmt
