#include "nmt/model/gru_cell.h"

#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "nmt/kernels/kernels.h"

namespace nmt {

GruWeights gru_weights(const torch::nn::GRU& rnn, std::int64_t layer, bool reverse) {
  const std::string suffix = "_l" + std::to_string(layer) + (reverse ? "_reverse" : "");
  const auto named = rnn->named_parameters(/*recurse=*/false);
  return {named["weight_ih" + suffix], named["weight_hh" + suffix], named["bias_ih" + suffix],
          named["bias_hh" + suffix]};
}

at::Tensor gru_cell(const at::Tensor& input_gates, const at::Tensor& hidden_gates, const at::Tensor& h) {
  if (inference_kernels_apply(input_gates, hidden_gates) && inference_kernels_apply(input_gates, h)) {
    return gru_cell_rows(input_gates, hidden_gates, h);  // the same formula in one pass, batch invariant
  }
  const auto i = input_gates.chunk(3, /*dim=*/1);
  const auto g = hidden_gates.chunk(3, /*dim=*/1);
  const at::Tensor r = at::sigmoid(i[0] + g[0]), z = at::sigmoid(i[1] + g[1]);
  const at::Tensor n = at::tanh(i[2] + r * g[2]);
  return (h - n) * z + n;  // = (1 - z) n + z h
}

at::Tensor gru_states(const at::Tensor& input_gates, const Product& hidden_gates) {
  const std::int64_t batch = input_gates.size(0), steps = input_gates.size(1), hidden = input_gates.size(2) / 3;
  at::Tensor h = at::zeros({batch, hidden}, input_gates.options());
  std::vector<at::Tensor> states;
  states.reserve(static_cast<std::size_t>(steps));
  for (std::int64_t t = 0; t < steps; ++t) {
    h = gru_cell(input_gates.select(1, t), hidden_gates(h), h);
    states.push_back(h);
  }
  return at::stack(states, /*dim=*/1);
}

}  // namespace nmt
