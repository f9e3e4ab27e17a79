#include "nmt/search/penalties.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "nmt/data/tokenizer.h"

namespace nmt {

double length_penalty(LengthPenalty kind, double alpha, std::int64_t length) {
  const auto y = static_cast<double>(length);
  switch (kind) {
    case LengthPenalty::none: return 1.0;
    case LengthPenalty::average: return y;
    case LengthPenalty::gnmt: return std::pow((5.0 + y) / 6.0, alpha);
  }
  throw std::logic_error("unknown length penalty");
}

double coverage_penalty(double beta, const float* coverage, std::int64_t source_length) {
  if (beta == 0) return 0;
  double sum = 0;
  for (std::int64_t p = 0; p < source_length; ++p) {
    // Clamp below first: log(0) = -inf would swamp every other term.
    sum += std::log(std::min(std::max(static_cast<double>(coverage[p]), 1e-10), 1.0));
  }
  return beta * sum;
}

double final_score(float log_prob, std::int64_t length, const float* coverage, std::int64_t source_length,
                   const SearchOptions& options) {
  const double lp = length_penalty(options.length_penalty, options.length_alpha, length);
  return static_cast<double>(log_prob) / lp + coverage_penalty(options.coverage_beta, coverage, source_length);
}

std::vector<int> repeated_ngram_tokens(const std::vector<int>& tokens, std::int64_t n) {
  std::vector<int> out;
  const auto size = static_cast<std::int64_t>(tokens.size());
  if (n < 1 || size < n) return out;
  const std::int64_t prefix = n - 1;  // the last n-1 tokens must match tokens[i .. i+n-2]
  for (std::int64_t i = 0; i + n <= size; ++i) {
    if (std::equal(tokens.begin() + i, tokens.begin() + i + prefix, tokens.end() - prefix)) {
      out.push_back(tokens[static_cast<std::size_t>(i + prefix)]);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  out.erase(std::remove(out.begin(), out.end(), SpecialIds::kEos), out.end());
  return out;
}

bool constraints_apply(std::int64_t held, const SearchOptions& options) {
  return held < options.min_length || (options.no_repeat_ngram > 0 && held >= options.no_repeat_ngram);
}

void apply_constraints(at::Tensor& scores, const std::vector<const std::vector<int>*>& histories,
                       std::int64_t held, const SearchOptions& options) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  if (held < options.min_length) scores.select(/*dim=*/1, SpecialIds::kEos).fill_(kNegInf);
  if (options.no_repeat_ngram <= 0 || held < options.no_repeat_ngram) return;
  std::vector<std::int64_t> rows, ids;
  for (std::size_t row = 0; row < histories.size(); ++row) {
    for (const int id : repeated_ngram_tokens(*histories[row], options.no_repeat_ngram)) {
      rows.push_back(static_cast<std::int64_t>(row));
      ids.push_back(id);
    }
  }
  if (rows.empty()) return;
  const auto device = scores.device();
  scores.index_put_({at::tensor(rows, at::kLong).to(device), at::tensor(ids, at::kLong).to(device)},
                    at::scalar_tensor(kNegInf, scores.options()));
}

}  // namespace nmt
