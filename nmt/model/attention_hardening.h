// Hard attention at inference (docs/attention.md, "Hard attention at inference"): the context is the
// one encoder state with the largest weight, c_t = h_k with k = argmax_j a_tj, and the step's
// weights are that one-hot row. A capability of the native models (InferenceModel, and ensembles of
// them) that search never sees: the Translator asks for the hardened model when its options say so.
#pragma once

#include <ATen/core/Tensor.h>

#include <memory>

#include "nmt/model/incremental_decoder.h"

namespace nmt {

class AttentionHardening {
 public:
  virtual ~AttentionHardening() = default;
  /// This model with hard attention. It shares this one's weights; either may be destroyed first.
  virtual std::shared_ptr<const IncrementalDecoder> with_hard_attention() const = 0;
};

/// `model` with hard attention. ConfigError when it has none to harden (attention = none) or its
/// steps are not ours to change (a scripted checkpoint's own methods, --engine script).
std::shared_ptr<const IncrementalDecoder> harden_attention(const IncrementalDecoder& model);

/// weights [rows, src_len] -> one-hot rows at each row's largest weight (the first of equal ones).
at::Tensor hard_weights(const at::Tensor& weights);

}  // namespace nmt
