// Attention scores for inference: every score type in the one form of AttentionParts
// (attention.h), with its products packed once.
//   keys    k_j = K h_j          (K: U, P, W or W[:, D:]; h_j itself for dot with D = 2H)
//   query   q'  = Q q            (Q: W or W[:, :D] for the additive scores; q itself otherwise)
//   scores  e_j = v^T tanh(q' + k_j)  (Bahdanau, concat)  or  q'^T k_j  (dot, general)
//   a = softmax(e) over the real positions (or the model's sparse normaliser, attention_normaliser.h),
//   or over a local window around p_t with its Gaussian (attention_window.h).
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include "nmt/model/attention.h"
#include "nmt/kernels/kernels.h"

namespace nmt {

class InferenceAttention {
 public:
  /// `precision`: of the keys' and the query's products (the window's stay float32).
  InferenceAttention(const AttentionParts& parts, AttentionNormaliser normaliser, const AttentionWindowParts& window,
                     const c10::Device& device, Precision precision = Precision::float32);

  /// memory [sources, src_len, 2H] -> keys [sources, src_len, K].
  at::Tensor keys(const at::Tensor& memory) const;

  /// Whether the scores read the keys by dot products (Luong dot and general): such keys may be
  /// int8 positions (kernels.h); the additive energy's keys stay float.
  bool scores_by_dot() const { return !v_.defined(); }

  /// query [rows, D], keys [sources, src_len, K], mask [rows, src_len] bool (true at real tokens),
  /// source_rows [rows] int64 on the CPU or undefined (InferenceState::source_rows), step: the
  /// decoder step from 0 (local-m's and local-p-offset's centre) -> a [rows, src_len]: rows sum to 1, exactly 0 at padding.
  /// key_scales [sources, src_len] when the keys are int8 positions (scores_by_dot() only).
  at::Tensor weights(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& mask,
                     const at::Tensor& source_rows, std::int64_t step,
                     const at::Tensor& key_scales = at::Tensor()) const;

  /// The same attention with hard weights: one-hot at each row's largest weight (attention_hardening.h).
  InferenceAttention hardened() const;

 private:
  PackedLinear key_layer_;    // undefined: keys are the memory itself
  PackedLinear query_layer_;  // undefined: the query as it is
  at::Tensor v_;              // [K]; undefined: dot scores
  AttentionNormaliser normaliser_;
  AttentionWindow window_;
  std::int64_t window_size_;
  PackedLinear position_layer_, position_energy_;  // local-p, local-p-offset: W_p, v_p
  bool hard_ = false;
};

}  // namespace nmt
