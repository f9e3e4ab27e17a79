// GRU decoder with attention, in Bahdanau or Luong style (docs/model.md, "Decoder"): the
// trainable form of the equations in decoder_walk.h, whose walk it steps with its own products.
// r_t (size R) is what the output layer reads; s_t is the top layer's state. Without attention
// (attention = none, Cho et al. 2014) c_t = c = [fwd_n; bwd_1], the encoder top layer's final
// states, at every step, and there are no weights a_t.
//
// forward() runs every step of teacher forcing, and moves what does not depend on the recurrence
// out of the time loop (the ê_{t-1} block of the first GRU layer's input weight and, without
// attention, its context block; in Bahdanau style the readout, which no step reads back: each
// becomes one matrix product over all steps). Search steps the inference form instead
// (nmt/model/inference/), built from these parameters.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/rnn.h>

#include <map>
#include <memory>
#include <vector>

#include "nmt/model/attention.h"
#include "nmt/model/decoder_walk.h"
#include "nmt/model/encoder.h"
#include "nmt/model/gru_cell.h"
#include "nmt/model/model_config.h"

namespace nmt {

struct DecoderSequence {
  at::Tensor readouts;   // [batch, tgt_len, R]
  at::Tensor attention;  // [batch, tgt_len, src_len]; undefined without attention
};

class DecoderImpl : public torch::nn::Module {
 public:
  explicit DecoderImpl(const ModelConfig& config);

  /// Every step of teacher forcing. embedded [batch, tgt_len, E] holds e_0 .. e_{T-1}; encoded and
  /// mask [batch, src_len] (bool, true at real positions) as the encoder and Seq2Seq give them.
  DecoderSequence forward(const at::Tensor& embedded, const EncoderOutput& encoded, const at::Tensor& mask);

  /// s_0 [layers, batch, D]: tanh(W_b [fwd_n; bwd_1] + b_b) of the encoder's top layer for every
  /// decoder layer, or zeros without a bridge.
  at::Tensor initial_hidden(const EncoderOutput& encoded);

  // The parameters, for the inference form.
  const std::vector<GruWeights>& layers() const { return layers_; }
  const torch::nn::Linear& bridge() const { return bridge_; }
  const torch::nn::Linear& readout() const { return readout_; }
  const AttentionImpl* attention() const { return attention_.get(); }  // null without attention
  const DecoderLayout& layout() const { return layout_; }
  /// Hard attention's Gumbel-softmax temperature in training (attention_normaliser.h); no effect otherwise.
  void set_attention_temperature(double temperature) {
    if (attention_) attention_->set_temperature(temperature);
  }

 private:
  class Terms;  // this form's DecoderTerms (decoder.cc)
  /// r = tanh(W_r x + b_r), x the inputs side by side in the layout's order (any leading shape).
  at::Tensor readout_of(const std::map<DecoderInput, at::Tensor>& inputs) const;

  ModelConfig config_;
  DecoderLayout layout_;
  std::shared_ptr<AttentionImpl> attention_;  // null for attention = none
  torch::nn::GRU rnn_{nullptr};           // rnn.weight_ih_l0 ...: input layout_.gru_input (E + 2H or E + R)
  std::vector<GruWeights> layers_;        // handles of rnn_'s parameters by layer (.to() and loads keep them)
  torch::nn::Linear bridge_{nullptr};     // bridge.weight [D, 2H], bridge.bias [D]; absent for the zero bridge
  torch::nn::Linear readout_{nullptr};    // readout.weight [R, layout_.readout]: D + 2H + E or 2H + D
};
TORCH_MODULE(Decoder);

}  // namespace nmt
