// Bidirectional multi-layer GRU encoder over embedded, padded source batches.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/rnn.h>

#include <array>
#include <functional>
#include <vector>

#include "nmt/model/gru_cell.h"
#include "nmt/model/model_config.h"

namespace nmt {

struct EncoderOutput {
  at::Tensor memory;        // [batch, src_len, 2H]: h_j = [fwd_j; bwd_j] of the top layer; 0 at padding
  at::Tensor final_states;  // [2 * layers, batch, H]: PyTorch's h_n (layer-major, forward then backward)
};

/// [batch, 2H]: [fwd_n; bwd_1] of the encoder's top layer, what the bridge reads (final_states
/// holds [layer0 fwd, layer0 bwd, layer1 fwd, ...]: the top layer is the last two).
at::Tensor top_final_states(const EncoderOutput& encoded);

/// [batch, src_len] bool, true at the real positions of each row: lengths [batch] int64.
at::Tensor source_mask(std::int64_t src_len, const at::Tensor& lengths);

/// One direction of one layer: (layer, reverse, input [batch, src_len, in]) -> states [batch, src_len, H]
/// from h_0 = 0 over the input as given (encode_bidirectional reverses the rows for reverse = true).
using DirectionRunner = std::function<at::Tensor(std::int64_t layer, bool reverse, const at::Tensor& input)>;

/// One direction of one layer from h_0 = 0 over input [batch, src_len, in] -> [batch, src_len, H]:
/// at::gru with autograd or on other devices; else PyTorch's cell with the given row-invariant
/// products input_gates(x) = W_ih x + b_ih and hidden_gates(h) = W_hh h + b_hh (gru_states).
at::Tensor run_gru_direction(const at::Tensor& input, const GruWeights& w, bool training, const Product& input_gates,
                             const Product& hidden_gates);

/// On CUDA with cuDNN: makes w's four tensors views of one buffer of their own, laid out as cuDNN
/// runs a one-direction GRU, so at::gru neither copies them nor warns (encoder.cc); elsewhere
/// nothing. The tensors keep their identity (set_). Returns whether it flattened.
bool flatten_gru_direction_for_cudnn(const GruWeights& w);

/// The bidirectional walk over a padded batch (see encoder.cc) with each direction's GRU run by
/// `run`: embedded [batch, src_len, E], lengths [batch] int64 (every one >= 1). Dropout with
/// probability `dropout` (when training) on the input of every layer after the first. `embedded`
/// is only handed to run's first layer (reversed per row for the backward direction), so it may
/// be any per-position values that layer reads: InferenceEncoder passes piece ids [batch, src_len, 1].
EncoderOutput encode_bidirectional(const at::Tensor& embedded, const at::Tensor& lengths, std::int64_t layers,
                                   double dropout, bool training, const DirectionRunner& run);

class EncoderImpl : public torch::nn::Module {
 public:
  explicit EncoderImpl(const ModelConfig& config);

  /// embedded [batch, src_len, E], lengths [batch] int64 (real lengths, EOS included, every one >= 1).
  /// Padding never reaches a real position's state (each direction reads the real tokens first).
  EncoderOutput forward(const at::Tensor& embedded, const at::Tensor& lengths);

  /// The weights of layer l: [l][0] forward, [l][1] backward (the module's parameters).
  const std::vector<std::array<GruWeights, 2>>& layers() const { return layers_; }

  /// Module::to, then on CUDA each direction's weights into a cuDNN buffer of their own (encoder.cc).
  using torch::nn::Module::to;
  void to(torch::Device device, torch::Dtype dtype, bool non_blocking = false) override;
  void to(torch::Dtype dtype, bool non_blocking = false) override;
  void to(torch::Device device, bool non_blocking = false) override;

 private:
  void flatten_directions_for_cudnn();

  std::vector<std::array<GruWeights, 2>> layers_;  // handles of rnn_'s parameters (.to() and loads keep them)
  double dropout_;               // between layers, as nn.GRU applies it
  torch::nn::GRU rnn_{nullptr};  // parameters rnn.weight_ih_l0, rnn.weight_hh_l0_reverse, ...
};
TORCH_MODULE(Encoder);

}  // namespace nmt
