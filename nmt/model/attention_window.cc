#include "nmt/model/attention_window.h"

#include <ATen/ATen.h>

#include <limits>

#include "nmt/model/attention_normaliser.h"

namespace nmt {

at::Tensor monotonic_centres(std::int64_t step, const at::Tensor& lengths, const at::Tensor& like) {
  return (lengths - 1).clamp_max(step).to(like.options());
}

at::Tensor predicted_centres(const at::Tensor& energy, const at::Tensor& lengths) {
  return (lengths - 1).to(energy.options()) * energy.squeeze(-1).sigmoid();
}

at::Tensor offset_centres(std::int64_t step, const at::Tensor& lengths, const at::Tensor& energy, std::int64_t window) {
  return monotonic_centres(step, lengths, energy) + energy.squeeze(-1).tanh() * static_cast<double>(window);
}

at::Tensor learnt_centres(AttentionWindow window, std::int64_t step, const at::Tensor& lengths,
                          const at::Tensor& energy, std::int64_t size) {
  TORCH_CHECK(window == AttentionWindow::local_p || window == AttentionWindow::local_p_offset,
              "learnt_centres: only local-p and local-p-offset learn their centres");
  return window == AttentionWindow::local_p ? predicted_centres(energy, lengths)
                                            : offset_centres(step, lengths, energy, size);
}

at::Tensor local_attention_weights(const at::Tensor& scores, const at::Tensor& centres, std::int64_t window,
                                   AttentionNormaliser normaliser) {
  return local_attention_weights(scores, centres, window,
                                 [normaliser](const at::Tensor& s) { return normalise_attention(s, normaliser); });
}

at::Tensor local_attention_weights(const at::Tensor& scores, const at::Tensor& centres, std::int64_t window,
                                   const std::function<at::Tensor(const at::Tensor&)>& normalise) {
  const std::int64_t columns = scores.size(-1);
  const at::Tensor distance = at::arange(columns, scores.options()).unsqueeze(0) - centres.unsqueeze(-1);
  // Outside the window the score is -inf: the normaliser gives it exactly 0. The window always
  // holds a real position: local-m's and local-p's p_t are in [0, n - 1] (and W >= 1), and
  // local-p-offset's is within W of min(t, n - 1).
  const at::Tensor outside = distance.abs() > static_cast<double>(window);  // a discrete choice: no gradient
  const at::Tensor aligned = normalise(scores.masked_fill(outside, -std::numeric_limits<double>::infinity()));
  const double sigma = static_cast<double>(window) / 2;
  // The Gaussian carries local-p's and local-p-offset's gradient to their position network (the
  // window's edges do not).
  const at::Tensor product = aligned * (distance.square() * (-1 / (2 * sigma * sigma))).exp();
  return product / product.cumsum(-1).narrow(-1, columns - 1, 1);
}

at::Tensor real_lengths(const at::Tensor& mask) { return mask.sum(-1); }

}  // namespace nmt
