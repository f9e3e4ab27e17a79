// Row-wise maps with the kernels' formulas: the GRU cell, tanh and the masked softmax. Every element
// takes one formula whatever the row count (kernels.h, "Elementwise inference kernels").
#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>

#include "nmt/kernels/kernels.h"
#include "nmt/kernels/map_rows.h"
#include "nmt/kernels/sentence_kernels.h"

namespace nmt {

at::Tensor gru_cell_rows(const at::Tensor& input_gates, const at::Tensor& hidden_gates, const at::Tensor& h) {
  TORCH_CHECK(input_gates.dim() == 2 && h.dim() == 2 && hidden_gates.sizes() == input_gates.sizes() &&
                  input_gates.size(0) == h.size(0) && input_gates.size(1) == 3 * h.size(1),
              "gru_cell_rows: expected gates [rows, 3D] and h [rows, D], got ", input_gates.sizes(), ", ",
              hidden_gates.sizes(), " and ", h.sizes());
  TORCH_CHECK(inference_kernels_apply(input_gates, hidden_gates) && inference_kernels_apply(input_gates, h),
              "gru_cell_rows: CPU float or double tensors of one type without autograd only");
  // Rows may be strided (a time step of [batch, steps, 3D]); each row itself must be contiguous.
  const auto row_major = [](const at::Tensor& t) { return t.stride(1) == 1 ? t : t.contiguous(); };
  const at::Tensor i = row_major(input_gates), g = row_major(hidden_gates), previous = row_major(h);
  const std::int64_t rows = h.size(0), size = h.size(1);
  at::Tensor out = at::empty({rows, size}, h.options());
  AT_DISPATCH_FLOATING_TYPES(h.scalar_type(), "gru_cell_rows", [&] {
    const scalar_t* ip = i.data_ptr<scalar_t>();
    const scalar_t* gp = g.data_ptr<scalar_t>();
    const scalar_t* hp = previous.data_ptr<scalar_t>();
    scalar_t* op = out.data_ptr<scalar_t>();
    at::parallel_for(0, rows, 1, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t r = begin; r < end; ++r) {
        gru_cell_sentence(ip + r * i.stride(0), gp + r * g.stride(0), hp + r * previous.stride(0), op + r * size, size);
      }
    });
  });
  return out;
}

at::Tensor tanh_rows(const at::Tensor& x) {
  if (!inference_kernels_apply(x, at::Tensor()) || x.dim() == 0) return at::tanh(x);
  return kernel_rows::map_rows(x, [](const auto* in, auto* out, std::int64_t size) { tanh_sentence(in, out, size); });
}

at::Tensor softmax_last(const at::Tensor& scores) {
  if (!inference_kernels_apply(scores, at::Tensor()) || scores.dim() == 0) return scores.softmax(/*dim=*/-1);
  return kernel_rows::map_rows(scores,
                               [](const auto* in, auto* out, std::int64_t size) { softmax_sentence(in, out, size); });
}

}  // namespace nmt
