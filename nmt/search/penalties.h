// Scoring and constraints shared by the search strategies (docs/search.md).
//   final score      s  = r / lp(|Y|) + cp                       r: summed log-probabilities
//   length penalty   lp = 1 (none) | |Y| (average) | ((5 + |Y|) / 6)^alpha (gnmt; Wu et al. 2016, eq. 14)
//   coverage penalty cp = beta * sum_p log(min(max(C_p, 1e-10), 1))   over the real source positions p,
//                    C_p = sum over the hypothesis' steps of its attention on p (Wu et al. 2016, eq. 14)
// |Y| counts the generated tokens, EOS included when the hypothesis ended with one.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "nmt/search/search_options.h"

namespace nmt {

/// lp(length) for length >= 1; alpha is used by gnmt only.
double length_penalty(LengthPenalty kind, double alpha, std::int64_t length);

/// cp for the coverage vector C [source_length] (real positions only); 0 when beta is 0.
/// Summed left to right in double, then multiplied by beta.
double coverage_penalty(double beta, const float* coverage, std::int64_t source_length);
inline double coverage_penalty(double beta, const std::vector<float>& coverage) {
  return coverage_penalty(beta, coverage.data(), static_cast<std::int64_t>(coverage.size()));
}

/// s = double(r) / lp(length) + cp; `coverage` may be null when beta is 0.
double final_score(float log_prob, std::int64_t length, const float* coverage, std::int64_t source_length,
                   const SearchOptions& options);

/// The tokens w that would repeat an n-gram of `tokens`: (last n-1 tokens, w) occurs in `tokens`
/// (n = 1: every token already there). Sorted, unique; EOS never (ending is always allowed).
std::vector<int> repeated_ngram_tokens(const std::vector<int>& tokens, std::int64_t n);

/// Whether apply_constraints can forbid anything for hypotheses holding `held` tokens: EOS while
/// held < min_length, repeated n-grams once held >= no_repeat_ngram > 0. When false, search may
/// rank r + log p without writing the sums out.
bool constraints_apply(std::int64_t held, const SearchOptions& options);

/// Sets to -inf, in scores [rows, V], what the options forbid for the hypotheses whose tokens are
/// histories[row] (all of them hold `held` tokens): EOS while held < min_length, and the tokens
/// repeated_ngram_tokens() names when no_repeat_ngram > 0. Scores may live on any device.
void apply_constraints(at::Tensor& scores, const std::vector<const std::vector<int>*>& histories,
                       std::int64_t held, const SearchOptions& options);

}  // namespace nmt
