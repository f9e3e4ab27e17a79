// One loop over the rows of the last dimension for the row-wise kernels (elementwise.cc,
// sparse_normalisers.cc). Internal to nmt/kernels.
#pragma once

#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>

namespace nmt::kernel_rows {

// y = f(x) row by row over the last dimension of a CPU float or double tensor: row_kernel(x_row,
// y_row, size) is called with pointers of the tensor's type (a generic lambda, or overloads).
template <typename RowKernel>
at::Tensor map_rows(const at::Tensor& x, RowKernel row_kernel) {
  const at::Tensor in = x.contiguous();
  const std::int64_t size = in.size(-1), rows = size == 0 ? 0 : in.numel() / size;
  at::Tensor out = at::empty_like(in);
  AT_DISPATCH_FLOATING_TYPES(in.scalar_type(), "map_rows", [&] {
    const scalar_t* xp = in.data_ptr<scalar_t>();
    scalar_t* yp = out.data_ptr<scalar_t>();
    at::parallel_for(0, rows, 1, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t r = begin; r < end; ++r) row_kernel(xp + r * size, yp + r * size, size);
    });
  });
  return out;
}

}  // namespace nmt::kernel_rows
