// Bidirectional multi-layer GRU encoder over embedded, padded source batches.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/rnn.h>

#include <vector>

#include "nmt/model/model_config.h"

namespace nmt {

struct EncoderOutput {
  at::Tensor memory;        // [batch, src_len, 2H]: h_j = [fwd_j; bwd_j] of the top layer; 0 at padding
  at::Tensor final_states;  // [2 * layers, batch, H]: PyTorch's h_n (layer-major, forward then backward)
};

class EncoderImpl : public torch::nn::Module {
 public:
  explicit EncoderImpl(const ModelConfig& config);

  /// embedded [batch, src_len, E], lengths [batch] int64 (real lengths, EOS included, every one >= 1).
  /// Padding never reaches a real position's state (each direction reads the real tokens first).
  EncoderOutput forward(const at::Tensor& embedded, const at::Tensor& lengths);

 private:
  /// {weight_ih, weight_hh, bias_ih, bias_hh} of one layer and direction.
  std::vector<at::Tensor> direction_parameters(std::int64_t layer, bool reverse) const;

  std::int64_t layers_;
  double dropout_;               // between layers, as nn.GRU applies it
  torch::nn::GRU rnn_{nullptr};  // parameters rnn.weight_ih_l0, rnn.weight_hh_l0_reverse, ...
};
TORCH_MODULE(Encoder);

}  // namespace nmt
