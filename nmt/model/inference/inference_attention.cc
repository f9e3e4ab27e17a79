#include "nmt/model/inference/inference_attention.h"

#include <ATen/ATen.h>

#include "nmt/kernels/kernels.h"
#include "nmt/model/attention_hardening.h"
#include "nmt/model/attention_normaliser.h"
#include "nmt/model/attention_window.h"

namespace nmt {

InferenceAttention::InferenceAttention(const AttentionParts& parts, AttentionNormaliser normaliser,
                                       const AttentionWindowParts& window, const c10::Device& device,
                                       Precision precision)
    : normaliser_(normaliser), window_(window.window), window_size_(window.size) {
  if (window.position_weight.defined()) {
    position_layer_ = PackedLinear(window.position_weight, at::Tensor(), device);
    position_energy_ = PackedLinear(window.position_v, at::Tensor(), device);
  }
  if (parts.key_weight.defined()) key_layer_ = PackedLinear(parts.key_weight, at::Tensor(), device, precision);
  if (parts.query_weight.defined()) query_layer_ = PackedLinear(parts.query_weight, at::Tensor(), device, precision);
  if (parts.v.defined()) v_ = snapshot(parts.v, device).contiguous();
}

at::Tensor InferenceAttention::keys(const at::Tensor& memory) const {
  return key_layer_.defined() ? key_layer_(memory) : memory;
}

at::Tensor InferenceAttention::weights(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& mask,
                                       const at::Tensor& source_rows, std::int64_t step,
                                       const at::Tensor& key_scales) const {
  const at::Tensor q = query_layer_.defined() ? query_layer_(query) : query;
  // -inf at padding makes padded weights exactly zero (exp(-inf) = 0; below every threshold tau);
  // the kernels do not score the padding at all.
  const at::Tensor scores =
      v_.defined() ? additive_energy(q, keys, v_, source_rows, mask) : dot_scores(q, keys, source_rows, mask, key_scales);
  at::Tensor weights;
  switch (window_) {
    case AttentionWindow::global: weights = normalise_attention(scores, normaliser_); break;
    case AttentionWindow::local_m:
      weights = local_attention_weights(scores, monotonic_centres(step, real_lengths(mask), scores), window_size_,
                                        normaliser_);
      break;
    case AttentionWindow::local_p:
    case AttentionWindow::local_p_offset: {
      // v_p^T tanh(W_p q), from the query itself (not q' = Q q), to local-p's centre
      // (n - 1) sigmoid(.) or local-p-offset's min(t, n - 1) + W tanh(.)
      const at::Tensor energy = position_energy_(tanh_rows(position_layer_(query)));
      weights = local_attention_weights(scores, learnt_centres(window_, step, real_lengths(mask), energy, window_size_),
                                        window_size_, normaliser_);
      break;
    }
  }
  return hard_ ? hard_weights(weights) : weights;
}

InferenceAttention InferenceAttention::hardened() const {
  InferenceAttention copy = *this;  // the packed products are shared
  copy.hard_ = true;
  return copy;
}

}  // namespace nmt
