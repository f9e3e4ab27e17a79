// GRU decoder with attention, in Bahdanau or Luong style (docs/model.md, "Decoder").
//   Bahdanau style:  a_t, c_t = attend(s_{t-1});  s_t = GRU([e_{t-1}; c_t], s_{t-1});
//                    r_t = tanh(W_r [s_t; c_t; e_{t-1}] + b_r)
//   Luong style:     s_t = GRU([e_{t-1}; r_{t-1}], s_{t-1})  (input feeding, r_0 = 0);
//                    a_t, c_t = attend(s_t);  r_t = tanh(W_r [c_t; s_t] + b_r)
// r_t (size R) is what the output layer reads; s_t is the top layer's state.
//
// Two faces: forward() over whole target sequences (teacher forcing, training) and step() one token
// at a time (search). forward() moves what does not depend on the recurrence out of the time loop:
// the e_{t-1} half of the first GRU layer's input projection, and in Bahdanau style the readout,
// each become one matrix product over all steps. step() computes the same function; in inference
// on the CPU it regroups the arithmetic (docs/model.md, "Inference"): every weight block W_c
// that reads the context is applied to the memory once per sentence (W_c c_t = sum_j a_tj W_c h_j),
// and the terms that depend only on the previous token come from a per-word table. The two agree
// to float rounding (tests hold them to 1e-5).
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/rnn.h>

#include <memory>
#include <vector>

#include "nmt/model/attention.h"
#include "nmt/model/decoder_state.h"
#include "nmt/model/encoder.h"
#include "nmt/model/model_config.h"

namespace nmt {

struct DecoderStep {
  at::Tensor readout;    // [batch, R] r_t
  at::Tensor attention;  // [batch, src_len] a_t
  DecoderState state;    // s_t (and r_t as the next input feed in Luong style)
};

struct DecoderSequence {
  at::Tensor readouts;   // [batch, tgt_len, R]
  at::Tensor attention;  // [batch, tgt_len, src_len]
};

class DecoderImpl : public torch::nn::Module {
 public:
  explicit DecoderImpl(const ModelConfig& config);

  /// The state before the first step: attention keys, and s_0 from the bridge
  /// (zeros, or tanh(W_b [fwd_n; bwd_1] + b_b) of the encoder's top layer, for every decoder layer).
  /// for_steps, in inference on the CPU: also the projections that step() reads (state.projected).
  DecoderState initial_state(const EncoderOutput& encoded, const at::Tensor& mask, bool for_steps = true);

  /// One step. embedded [batch, E] is e_{t-1}, the embedding of the previous target token;
  /// terms [batch, T], when given, is embedding_terms(embedded) looked up in a table.
  /// With state.projected (inference) the step takes the projected path (docs/model.md).
  DecoderStep step(const at::Tensor& embedded, const DecoderState& state, const at::Tensor& terms = at::Tensor());

  /// W_ih[:, :E] e + b_ih of the first layer: the part of its input gates known before the step.
  /// embedded [..., E] -> [..., 3D].
  at::Tensor embedding_gates(const at::Tensor& embedded) const;
  /// Everything a step computes from e alone: embedding_gates(e), and in Bahdanau style also the
  /// readout's W_r[:, D+2H:] e + b_r. embedded [..., E] -> [..., T], T = 3D (+ R).
  at::Tensor embedding_terms(const at::Tensor& embedded) const;
  /// The parameters embedding_terms() reads.
  std::vector<at::Tensor> embedding_term_parameters() const;

  /// Every step of teacher forcing. embedded [batch, tgt_len, E] holds e_0 .. e_{T-1}.
  DecoderSequence forward(const at::Tensor& embedded, DecoderState state);

 private:
  struct Layer {
    at::Tensor weight_ih, weight_hh, bias_ih, bias_hh;  // PyTorch's GRU layout: gates r, z, n
  };
  std::vector<Layer> layers() const;
  /// W_ih[:, E:] x of the first layer: its input gates' share of the other half of its input x
  /// (c_t in Bahdanau style, r_{t-1} in Luong style), [batch, 3D].
  at::Tensor other_input_gates(const at::Tensor& other_input) const;
  /// s_t for every layer from the first layer's input gates W_ih x + b_ih [batch, 3D].
  /// Returns the new hidden [layers, batch, D].
  at::Tensor recur(const at::Tensor& first_input_gates, const at::Tensor& hidden);
  at::Tensor bahdanau_readout(const at::Tensor& s, const at::Tensor& context, const at::Tensor& embedded);
  at::Tensor luong_readout(const at::Tensor& context, const at::Tensor& s);
  /// The weight blocks W_c that read the context, each [rows, 2H]: W_ih[:, E:E+2H] of the first
  /// layer and W_r[:, D:D+2H] in Bahdanau style, W_r[:, :2H] in Luong style. state.projected holds
  /// their products with the memory side by side (P = the sum of their rows).
  std::vector<at::Tensor> context_blocks() const;
  /// step() in inference: the context blocks applied through state.projected.
  DecoderStep projected_step(const at::Tensor& terms, const DecoderState& state);

  ModelConfig config_;
  std::shared_ptr<AttentionImpl> attention_;
  torch::nn::GRU rnn_{nullptr};           // rnn.weight_ih_l0 ...: input E + 2H (Bahdanau) or E + R (Luong)
  torch::nn::Linear bridge_{nullptr};     // bridge.weight [D, 2H], bridge.bias [D]; absent for the zero bridge
  torch::nn::Linear readout_{nullptr};    // readout.weight [R, D + 2H + E] (Bahdanau) or [R, 2H + D] (Luong)
};
TORCH_MODULE(Decoder);

}  // namespace nmt
