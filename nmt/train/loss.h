// Token-level cross-entropy with label smoothing (Szegedy et al. 2016, section 7).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace nmt {

struct LossSums {
  at::Tensor loss;     // scalar: sum over real tokens of the smoothed loss (differentiable)
  at::Tensor nll;      // scalar: sum of -log p(y) over real tokens (no smoothing; for perplexity)
  std::int64_t tokens = 0;  // real target tokens (labels that are not padding)
};

/// logits [N, V], labels [N] (int64, SpecialIds::kPad is ignored), smoothing eps in [0, 1).
/// Per token, with q = 1 - eps on the label y and eps / (V - 2) on every other class but padding:
///   loss = -sum_k q_k log p_k  =  (1 - eps) (-log p_y) + eps / (V - 2) * sum_{k != y, pad} (-log p_k)
/// The padding class never receives probability mass (V - 2 others: all but y and pad).
LossSums label_smoothed_cross_entropy(const at::Tensor& logits, const at::Tensor& labels, double smoothing);

}  // namespace nmt
