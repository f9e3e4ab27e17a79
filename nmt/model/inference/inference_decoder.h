// The decoder in inference form, one class per style (docs/model.md, "Inference"). The arithmetic
// is the trainable decoder's (decoder.h), regrouped for one token at a time:
// - what depends only on the previous token e_{t-1} comes from a per-word table of every target
//   word (the first GRU layer's W_ih[:, :E] e + b_ih, and in Bahdanau style the readout's
//   W_r[:, D+2H:] e + b_r), made once;
// - every weight block W_c that reads the context is applied to the memory once per sentence, so
//   that W_c c_t = sum_j a_tj (W_c h_j) needs no c_t (InferenceState::projected).
// Both give the trainable decoder's function to float rounding (tests hold them to 1e-5).
// Without attention the context is the fixed c of every step: the blocks are applied to c once per
// sentence and p_t = W_c c at every step.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <memory>
#include <optional>
#include <vector>

#include "nmt/model/decoder.h"
#include "nmt/model/encoder.h"
#include "nmt/model/inference/inference_attention.h"
#include "nmt/model/inference/inference_state.h"
#include "nmt/model/model_config.h"
#include "nmt/kernels/kernels.h"

namespace nmt {

struct InferenceStep {
  at::Tensor readout;    // [batch, R] r_t
  at::Tensor attention;  // [batch, src_len] a_t; undefined without attention
  std::shared_ptr<InferenceState> state;
};

class InferenceDecoder {
 public:
  /// The inference form of `decoder` for its config's style; target_embedding [V_tgt, E] makes the
  /// per-word table. Copies of the parameters on `device`.
  static std::unique_ptr<const InferenceDecoder> make(const DecoderImpl& decoder, const ModelConfig& config,
                                                      const at::Tensor& target_embedding, const c10::Device& device);
  virtual ~InferenceDecoder() = default;

  /// The state before the first step: attention keys, projections, s_0 from the bridge (and
  /// r_0 = 0 in Luong style). mask [batch, src_len] bool, true at real positions.
  std::shared_ptr<InferenceState> initial_state(const EncoderOutput& encoded, const at::Tensor& mask) const;

  /// One step from y_{t-1} = previous_tokens [batch] int64.
  InferenceStep step(const at::Tensor& previous_tokens, const InferenceState& state) const;

 protected:
  /// context_blocks: the weight blocks [rows, 2H] that read c_t; term_weight [T, E], term_bias [T]:
  /// what a step computes from e_{t-1} alone.
  InferenceDecoder(const DecoderImpl& decoder, const ModelConfig& config, const std::vector<at::Tensor>& context_blocks,
                   const at::Tensor& term_weight, const at::Tensor& term_bias, const at::Tensor& target_embedding,
                   const c10::Device& device);

  /// The step of the style: terms [batch, T] (the table's rows for y_{t-1}).
  virtual InferenceStep step_terms(const at::Tensor& terms, const InferenceState& state) const = 0;

  /// s_t for every layer from the first layer's input gates [batch, 3D] -> hidden [layers, batch, D].
  at::Tensor recur(const at::Tensor& first_input_gates, const at::Tensor& hidden) const;

  struct Attended {
    at::Tensor weights;    // [batch, src_len] a_t; undefined without attention
    at::Tensor projected;  // [batch, P] p_t = sum_j a_tj W_c h_j, or W_c c without attention
  };
  /// The attention step from query [batch, D] (s_{t-1} or s_t, by style).
  Attended attend(const at::Tensor& query, const InferenceState& state) const;

  ModelConfig config_;
  std::optional<InferenceAttention> attention_;  // empty for attention = none

 private:
  struct Layer {
    PackedLinear input;   // W_ih x + b_ih (layers above the first; the first's comes from the caller)
    PackedLinear hidden;  // W_hh h + b_hh
  };
  std::vector<Layer> layers_;
  PackedLinear bridge_;      // W_b, b_b; undefined for the zero bridge
  PackedLinear projection_;  // the context blocks side by side: [P, 2H]
  at::Tensor terms_;         // [V_tgt, T] the per-word table
};

/// Bahdanau style: p_t = sum_j a_tj P_j = [W_ih[:, E:E+2H] c_t ; W_r[:, D:D+2H] c_t] and, with the
/// terms of e_{t-1},  s_t = GRU(gates_e + p_t[:3D], s_{t-1}),
///                    r_t = tanh(W_r[:, :D] s_t + (W_r[:, D+2H:] e + b_r) + p_t[3D:]).
class BahdanauInferenceDecoder final : public InferenceDecoder {
 public:
  BahdanauInferenceDecoder(const DecoderImpl& decoder, const ModelConfig& config, const at::Tensor& target_embedding,
                           const c10::Device& device);

 private:
  InferenceStep step_terms(const at::Tensor& terms, const InferenceState& state) const override;
  PackedLinear readout_state_;  // W_r[:, :D]
};

/// Luong style: s_t = GRU(gates_e + W_ih[:, E:] r_{t-1}, s_{t-1}), a_t = attend(s_t),
/// p_t = sum_j a_tj P_j = W_r[:, :2H] c_t, r_t = tanh(p_t + W_r[:, 2H:] s_t + b_r).
class LuongInferenceDecoder final : public InferenceDecoder {
 public:
  LuongInferenceDecoder(const DecoderImpl& decoder, const ModelConfig& config, const at::Tensor& target_embedding,
                        const c10::Device& device);

 private:
  InferenceStep step_terms(const at::Tensor& terms, const InferenceState& state) const override;
  PackedLinear feed_gates_;     // W_ih[:, E:] of the first layer
  PackedLinear readout_state_;  // W_r[:, 2H:], b_r
};

}  // namespace nmt
