// How attention scores become weights over the source positions (docs/attention.md):
//   softmax    a_j = exp(e_j) / sum_k exp(e_k)
//   sparsemax  a = argmin_{p in simplex} ||p - e||^2          = [e_j - tau]_+          (Martins & Astudillo 2016)
//   entmax15   a = argmax_{p in simplex} p^T e + H_1.5(p)     = [e_j / 2 - tau]_+^2    (Peters, Niculae & Martins 2019)
//   hard       a = one_hot(argmax_j e_j)                                              (the first of equal ones)
// with tau the one threshold that makes the weights sum to 1. sparsemax and 1.5-entmax give exact
// zeros to the positions whose score is far enough below the best; softmax never does. hard
// attention is trained by the straight-through Gumbel-softmax (gumbel_straight_through below,
// docs/attention.md "Trained hard attention"); everywhere else it is the argmax.
#pragma once

#include <ATen/core/Tensor.h>

#include "nmt/model/model_config.h"  // AttentionNormaliser

namespace nmt {

/// scores [batch, src_len] (any leading dimensions: the last is normalised), -inf at padding
/// (weight exactly 0); every row needs one finite score. Returns weights of the same shape that sum
/// to 1 along the last dimension. Differentiable: sparsemax and entmax15 are computed by their exact
/// sort-based closed forms, whose derivative at a fixed support is the normaliser's Jacobian (without
/// autograd on the CPU, by the one-pass kernels of kernels.h with the same bits); hard
/// (the argmax) has no gradient: training uses gumbel_straight_through.
/// A row's weights do not depend on the other rows or on how much padding follows its scores.
at::Tensor normalise_attention(const at::Tensor& scores, AttentionNormaliser normaliser);

/// sparsemax over the last dimension: tau = (sum_{j<=k} z_(j) - 1) / k for the largest k with
/// 1 + k z_(k) > sum_{j<=k} z_(j), z_(1) >= z_(2) >= ... the scores sorted.
at::Tensor sparsemax_last(const at::Tensor& scores);

/// 1.5-entmax over the last dimension: with x = z / 2 sorted, x_(1) >= x_(2) >= ..., and for each k
/// the mean m_k and the sum of squared deviations s_k of x_(1..k), tau_k = m_k - sqrt((1 - s_k) / k);
/// tau is tau_k for the largest k with tau_k <= x_(k), and a_j = [x_j - tau]_+^2.
at::Tensor entmax15_last(const at::Tensor& scores);

/// Trained hard attention's weights (Jang, Gu & Poole 2017; Bengio et al. 2013): with Gumbel noise
/// g_j = -log(-log u_j), u_j ~ U(0, 1) from the default generator (saved with the training state),
/// y = softmax((e + g) / temperature); forward one_hot(argmax y), exactly; backward y's gradient
/// (a = one_hot + y - stop_gradient(y)).
at::Tensor gumbel_straight_through(const at::Tensor& scores, double temperature);

/// The Gumbel-softmax temperature after `step` optimizer steps: max(0.5, exp(-3e-4 step)), from 1
/// down to 0.5 at step 2,311 (Jang et al.'s schedule form, tau = max(0.5, exp(-r t))).
double gumbel_temperature(std::int64_t step);

}  // namespace nmt
