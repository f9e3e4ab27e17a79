// PyTorch's GRU cell on precomputed gate pre-activations, shared by the encoder's inference path
// and the decoder's steps (their products differ: whole sequences, split inputs; the cell does not).
#pragma once

#include <ATen/core/Tensor.h>

namespace nmt {

/// input_gates = W_ih x + b_ih, hidden_gates = W_hh h + b_hh, both [batch, 3D] in PyTorch's gate
/// order (r, z, n); h [batch, D] the previous state. Returns h' [batch, D]:
///   r = sigmoid(i_r + h_r),  z = sigmoid(i_z + h_z),  n = tanh(i_n + r * h_n),  h' = (1 - z) n + z h
at::Tensor gru_cell(const at::Tensor& input_gates, const at::Tensor& hidden_gates, const at::Tensor& h);

}  // namespace nmt
