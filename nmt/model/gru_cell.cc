#include "nmt/model/gru_cell.h"

#include <ATen/ATen.h>

#include "nmt/model/kernels.h"

namespace nmt {

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

}  // namespace nmt
