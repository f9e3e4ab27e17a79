#include "nmt/model/attention_normaliser.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "nmt/kernels/kernels.h"
#include "nmt/model/attention_hardening.h"

namespace nmt {

namespace {

// A row's values sorted in decreasing order, padding (-inf, sorted last) replaced by 0 so that
// sums over them stay finite, and which sorted entries are real.
struct SortedRows {
  at::Tensor values;  // [..., n] decreasing over the real entries, then zeros
  at::Tensor real;    // [..., n] bool: a real (finite) entry
  at::Tensor rank;    // [n] 1, 2, ..., n in the values' type
};

SortedRows sort_rows(const at::Tensor& x) {
  at::Tensor sorted = std::get<0>(x.sort(/*dim=*/-1, /*descending=*/true));
  at::Tensor real = sorted.isfinite();
  return {sorted.masked_fill(real.logical_not(), 0), std::move(real), at::arange(1, x.size(-1) + 1, x.options())};
}

// The support's size k [..., 1] (int64) from the sorted entries that pass `in_support`, which holds
// for a prefix of them (at least the first: clamped only so that gather stays in range).
at::Tensor support_size(const at::Tensor& in_support) { return in_support.sum(-1, /*keepdim=*/true).clamp_min(1); }

// The scores shifted so that every row's best is 0 (tau moves with the shift, the weights do not;
// the shift is a constant to autograd, which is exact since the weights do not depend on it).
at::Tensor shifted(const at::Tensor& scores) { return scores - scores.amax(-1, /*keepdim=*/true).detach(); }

}  // namespace

at::Tensor sparsemax_last(const at::Tensor& scores) {
  const at::Tensor z = shifted(scores);
  const SortedRows sorted = sort_rows(z);
  const at::Tensor cumulative = sorted.values.cumsum(-1);  // sum_{j<=k} z_(j)
  at::Tensor k;
  {
    // Which k: a discrete choice, no gradient (the support is fixed where the weights are differentiable).
    const at::Tensor in_support = (sorted.rank * sorted.values + 1 > cumulative).logical_and(sorted.real);
    k = support_size(in_support.detach());
  }
  // tau = (sum_{j<=k} z_(j) - 1) / k; a_j = [z_j - tau]_+ (padding: -inf - tau clamps to 0).
  const at::Tensor tau = (cumulative.gather(-1, k - 1) - 1) / k.to(z.scalar_type());
  return (z - tau).clamp_min(0);
}

at::Tensor entmax15_last(const at::Tensor& scores) {
  const at::Tensor x = shifted(scores) / 2;  // (alpha - 1) z with alpha = 1.5
  const SortedRows sorted = sort_rows(x);
  const at::Tensor sums = sorted.values.cumsum(-1);                     // sum_{j<=k} x_(j)
  const at::Tensor sums_of_squares = sorted.values.square().cumsum(-1);  // sum_{j<=k} x_(j)^2
  at::Tensor k;
  {
    // For each k the threshold that makes the first k weights sum to 1, tau_k = m_k - sqrt((1 - s_k) / k)
    // with s_k = sum (x_(j) - m_k)^2 = sum x_(j)^2 - k m_k^2; the support is the largest k whose own
    // threshold is at most x_(k). Computed without gradient: sqrt of the clamped values beyond the
    // support would give 0 * inf in the backward pass.
    const at::Tensor mean = (sums / sorted.rank).detach();
    const at::Tensor deviations = (sums_of_squares.detach() - sorted.rank * mean * mean);
    const at::Tensor tau_k = mean - ((1 - deviations) / sorted.rank).clamp_min(0).sqrt();
    k = support_size((tau_k <= sorted.values.detach()).logical_and(sorted.real));
  }
  // tau at the support, differentiably: (1 - s_k) / k > 0 there (Peters et al. 2019, Algorithm 2).
  const at::Tensor size = k.to(x.scalar_type());
  const at::Tensor mean = sums.gather(-1, k - 1) / size;
  const at::Tensor deviations = sums_of_squares.gather(-1, k - 1) - size * mean * mean;
  const at::Tensor tau = mean - ((1 - deviations) / size).sqrt();
  return (x - tau).clamp_min(0).square();
}

at::Tensor normalise_attention(const at::Tensor& scores, AttentionNormaliser normaliser) {
  switch (normaliser) {
    // Without autograd on the CPU (decoding, validation) the one-pass kernels: the same bits.
    case AttentionNormaliser::sparsemax:
      return inference_kernels_apply(scores, at::Tensor()) ? sparsemax_rows(scores) : sparsemax_last(scores);
    case AttentionNormaliser::entmax15:
      return inference_kernels_apply(scores, at::Tensor()) ? entmax15_rows(scores) : entmax15_last(scores);
    case AttentionNormaliser::hard:
      return hard_weights(scores);
    case AttentionNormaliser::softmax:
      break;
  }
  return softmax_last(scores);
}

at::Tensor gumbel_straight_through(const at::Tensor& scores, double temperature) {
  // u in (0, 1): rand gives [0, 1); the clamp keeps -log(-log u) finite at both ends.
  const at::Tensor u = at::rand_like(scores).clamp_(1e-20, 1 - 1e-7);
  const at::Tensor soft = softmax_last((scores - (-u.log()).log()) / temperature);  // -inf stays -inf
  return hard_weights(soft.detach()) + (soft - soft.detach());
}

double gumbel_temperature(std::int64_t step) { return std::max(0.5, std::exp(-3e-4 * static_cast<double>(step))); }

}  // namespace nmt
