// PyTorch's GRU on precomputed gate pre-activations, shared by the trainable modules' no-gradient
// paths and the inference model (their products differ: per call, packed once; the cell does not).
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/nn/modules/rnn.h>

#include <cstdint>
#include <functional>

namespace nmt {

/// One layer (and direction) of a GRU in PyTorch's layout: gates r, z, n stacked along the rows.
/// weight_ih [3D, in], weight_hh [3D, D], bias_ih, bias_hh [3D].
struct GruWeights {
  at::Tensor weight_ih, weight_hh, bias_ih, bias_hh;
};

/// Layer `layer` of `rnn` (its reverse direction when `reverse`), under PyTorch's names
/// (weight_ih_l0, weight_hh_l1_reverse, ...). The tensors are the module's parameters themselves.
GruWeights gru_weights(const torch::nn::GRU& rnn, std::int64_t layer, bool reverse = false);

/// input_gates = W_ih x + b_ih, hidden_gates = W_hh h + b_hh, both [batch, 3D] in PyTorch's gate
/// order (r, z, n); h [batch, D] the previous state. Returns h' [batch, D]:
///   r = sigmoid(i_r + h_r),  z = sigmoid(i_z + h_z),  n = tanh(i_n + r * h_n),  h' = (1 - z) n + z h
at::Tensor gru_cell(const at::Tensor& input_gates, const at::Tensor& hidden_gates, const at::Tensor& h);

/// A linear map applied to a [rows, in] tensor (a bound product: W x + b).
using Product = std::function<at::Tensor(const at::Tensor&)>;

/// One direction of one layer from h_0 = 0: input_gates [batch, steps, 3D] (W_ih x_t + b_ih for
/// every step at once) -> states [batch, steps, D], with hidden_gates(h) = W_hh h + b_hh per step.
at::Tensor gru_states(const at::Tensor& input_gates, const Product& hidden_gates);

}  // namespace nmt
