#include "nmt/model/inference/inference_attention.h"

#include <ATen/ATen.h>

#include <limits>

#include "nmt/kernels/kernels.h"
#include "nmt/model/attention_hardening.h"
#include "nmt/model/attention_normaliser.h"

namespace nmt {

InferenceAttention::InferenceAttention(const AttentionParts& parts, AttentionNormaliser normaliser,
                                       const c10::Device& device)
    : normaliser_(normaliser) {
  if (parts.key_weight.defined()) key_layer_ = PackedLinear(parts.key_weight, at::Tensor(), device);
  if (parts.query_weight.defined()) query_layer_ = PackedLinear(parts.query_weight, at::Tensor(), device);
  if (parts.v.defined()) v_ = snapshot(parts.v, device).contiguous();
}

at::Tensor InferenceAttention::keys(const at::Tensor& memory) const {
  return key_layer_.defined() ? key_layer_(memory) : memory;
}

at::Tensor InferenceAttention::weights(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& mask,
                                       const at::Tensor& source_rows) const {
  const at::Tensor q = query_layer_.defined() ? query_layer_(query) : query;
  // -inf at padding makes padded weights exactly zero (exp(-inf) = 0; below every threshold tau);
  // the additive kernel does not score the padding at all.
  const at::Tensor scores =
      v_.defined() ? additive_energy(q, keys, v_, source_rows, mask)
                   : dot_scores(q, keys, source_rows).masked_fill(mask.logical_not(), -std::numeric_limits<double>::infinity());
  const at::Tensor weights = normalise_attention(scores, normaliser_);
  return hard_ ? hard_weights(weights) : weights;
}

InferenceAttention InferenceAttention::hardened() const {
  InferenceAttention copy = *this;  // the packed products are shared
  copy.hard_ = true;
  return copy;
}

}  // namespace nmt
