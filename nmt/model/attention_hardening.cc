#include "nmt/model/attention_hardening.h"

#include <ATen/ATen.h>

#include "nmt/core/error.h"

namespace nmt {

std::shared_ptr<const IncrementalDecoder> harden_attention(const IncrementalDecoder& model) {
  if (!model.has_attention()) {
    throw ConfigError("hard-attention needs attention weights, and the model has attention = none");
  }
  const auto* hardening = dynamic_cast<const AttentionHardening*>(&model);
  if (hardening == nullptr) {
    throw ConfigError("hard-attention needs the native engine: a scripted model runs its checkpoint's own "
                      "methods (--engine script)");
  }
  return hardening->with_hard_attention();
}

at::Tensor hard_weights(const at::Tensor& weights) {
  // argmax gives the first of equal maxima; the row stays a distribution over the same positions.
  return at::zeros_like(weights).scatter_(-1, weights.argmax(-1, /*keepdim=*/true), 1.0);
}

}  // namespace nmt
