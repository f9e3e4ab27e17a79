// A linear layer whose rows do not depend on how many rows there are.
//
// Why: a sentence must get the same numbers alone and inside any batch (docs/search.md, "Batch
// invariance"), and the model's arithmetic is row-wise, but the BLAS kernel is not always:
// OpenBLAS (0.3.21, x86-64 SkylakeX kernels, which AVX-512 machines run) computes a product
// x W^T with a separate "small matrix" kernel when rows x out_features <= 1200 (and in_features >= 32,
// rows x out x in <= 10^6), and that kernel sums in another order than the blocked one. So a row
// got other low bits when its batch was small (scripts/check_batch_invariance.py shows it).
// stable_linear pads such small products with zero rows until rows x out_features > 1200 and drops
// them again: every product runs the blocked kernel, whose rows are independent of their number.
// The padding only ever applies to products of a few rows (search steps of small batches).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace nmt {

/// Products with rows x out_features at or below this run OpenBLAS's small-matrix kernel.
constexpr std::int64_t kSmallProductLimit = 1200;

/// at::linear(input, weight, bias): input [..., in], weight [out, in], bias [out] or undefined.
at::Tensor stable_linear(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& bias = at::Tensor());

/// The fewest rows a product with `out_features` columns needs to stay off the small-matrix kernel.
std::int64_t stable_rows(std::int64_t out_features);

}  // namespace nmt
