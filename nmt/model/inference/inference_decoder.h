// The decoder in inference form (docs/model.md, "Inference"): the walk of decoder_walk.h stepped
// one token at a time with its arithmetic regrouped, the blocks of the weights taken from the
// layout of its style:
// - what depends only on the previous token ê_{t-1} comes from a per-word table of every target
//   word (W_ih,0's ê block with b_ih,0, and where W_r reads ê, its ê block with b_r), made once;
// - every block W_c that reads the context c_t is applied to the memory once per sentence, so that
//   W_c c_t = Σ_j a_tj (W_c h_j) needs no c_t (InferenceState::projected).
// Both give the trainable decoder's function to float rounding (tests hold them to 1e-5).
// Without attention the context is the fixed c of every step: the blocks are applied to c once per
// sentence and p_t = W_c c at every step.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <memory>
#include <optional>
#include <vector>

#include "nmt/kernels/kernels.h"
#include "nmt/model/inference/inference_precision.h"
#include "nmt/model/decoder.h"
#include "nmt/model/decoder_walk.h"
#include "nmt/model/encoder.h"
#include "nmt/model/inference/inference_attention.h"
#include "nmt/model/inference/inference_state.h"
#include "nmt/model/model_config.h"

namespace nmt {

struct InferenceStep {
  at::Tensor readout;    // [batch, R] r_t
  at::Tensor attention;  // [batch, src_len] a_t; undefined without attention
  std::shared_ptr<InferenceState> state;
};

class InferenceDecoder {
 public:
  /// The inference form of `decoder`; target_embedding [V_tgt, E] makes the per-word table. Copies
  /// of the parameters on `device`; `precision`: its decoder and attention groups say which
  /// products run in int8 (the bridge and the table stay float32: they run once).
  InferenceDecoder(const DecoderImpl& decoder, const ModelConfig& config, const at::Tensor& target_embedding,
                   const c10::Device& device, const InferencePrecision& precision = {});

  /// The state before the first step: attention keys, projections, S_0 from the bridge (and
  /// r_0 = 0 with input feeding). mask [batch, src_len] bool, true at real positions.
  std::shared_ptr<InferenceState> initial_state(const EncoderOutput& encoded, const at::Tensor& mask) const;

  /// One step from y_{t-1} = previous_tokens [batch] int64.
  InferenceStep step(const at::Tensor& previous_tokens, const InferenceState& state) const;

  /// This decoder with hard attention (attention_hardening.h), sharing its products; the model has
  /// attention.
  std::shared_ptr<const InferenceDecoder> with_hard_attention() const;

 private:
  class Terms;  // this form's DecoderTerms (inference_decoder.cc)

  ModelConfig config_;
  DecoderLayout layout_;
  std::optional<InferenceAttention> attention_;  // empty for attention = none
  struct Layer {
    PackedLinear input;   // W_ih,l x + b_ih,l (layers above the first; the first's comes from the blocks below)
    PackedLinear hidden;  // W_hh,l h + b_hh,l
  };
  std::vector<Layer> layers_;
  PackedLinear bridge_;         // W_b, b_b; undefined for the zero bridge
  PackedLinear projection_;     // the context blocks side by side, W_ih,0's (if it reads c_t) then W_r's: [P, 2H]
  PackedLinear feed_gates_;     // W_ih,0's r_{t-1} block (input feeding); undefined otherwise
  PackedLinear readout_state_;  // W_r's s_t block, with b_r when W_r does not read ê_{t-1}
  at::Tensor terms_;            // [V_tgt, 3D (+ R)] the per-word table: W_ih,0's ê block + b_ih,0 (then W_r's + b_r)
  std::int64_t gates_ = 0;      // 3D: the gates' width in terms_ and in projected rows
  bool int8_positions_ = false;  // keys (dot scores) and projections as int8 positions: precision.memory, CPU
  bool readout_reads_embedding_ = false;
  bool gru_reads_context_ = false;
};

}  // namespace nmt
