// A linear layer whose rows do not depend on how many rows there are, or on which.
//
// Why: a sentence must get the same numbers alone and inside any batch (docs/search.md, "Batch
// invariance"), and the model's arithmetic is row-wise, but BLAS kernels are not: OpenBLAS 0.3.21
// sums a row of x W^T in an order that depends on the product's shape and on the row's place in
// the kernel's tiles. Measured: its SkylakeX kernels (AVX-512 Xeons) run a separate small-matrix
// kernel when rows x out <= 1200; its Haswell/Zen kernels (AMD EPYC, AVX2) give rows 0-5 of every
// 12 other low bits than rows 6-11 once there are more than ~8 rows. Padding cannot fix the second.
//
// So inference (CPU, float or double, no autograd) runs its own product, in which every output is
//
//   y[r, n] = fma(x[r, K-1], W[n, K-1], ... fma(x[r, 1], W[n, 1], fma(x[r, 0], W[n, 0], 0)) ...) + b[n]
//
// one fused multiply-add chain in k order, then the bias: the same bits for a row whatever else is
// in the batch, on every CPU (fma is correctly rounded everywhere). The float kernel keeps W packed
// in panels of 16 columns and computes 6 rows x 16 columns at a time in AVX2 registers; without
// AVX2 + FMA a portable loop computes the same chains. PackedLinear packs a weight once (the
// inference model holds one per product it runs): faster than OpenBLAS at the row counts of search
// (docs/benchmarks.md), with no per-call packing of the 8000 x 256 output matrix; stable_linear()
// packs per call. Training (autograd) and other devices use at::linear.
#pragma once

#include <ATen/core/Tensor.h>

#include <c10/core/Device.h>

#include <cstdint>
#include <memory>

namespace nmt {

struct PackedWeight;

/// y = W x + b with W packed once: a snapshot of the weight and bias as they were when it was made
/// (copies on `device`). Row-invariant (the chain above) when the inference kernels apply
/// (kernels.h), at::linear otherwise. Safe to call from several threads at once.
class PackedLinear {
 public:
  PackedLinear() = default;
  /// weight [out, in], bias [out] or undefined.
  PackedLinear(const at::Tensor& weight, const at::Tensor& bias, const c10::Device& device);
  /// input [..., in] -> [..., out].
  at::Tensor operator()(const at::Tensor& input) const;
  bool defined() const { return weight_.defined(); }
  const at::Tensor& weight() const { return weight_; }
  const at::Tensor& bias() const { return bias_; }

 private:
  at::Tensor weight_, bias_;                    // contiguous copies
  std::shared_ptr<const PackedWeight> packed_;  // float on a CPU with AVX2 + FMA; else null
};

/// at::linear(input, weight, bias): input [..., in], weight [out, in], bias [out] or undefined.
/// Row-invariant (the chain above) when the inference kernels apply (kernels.h); packs per call.
at::Tensor stable_linear(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& bias = at::Tensor());

/// The chain above as plain scalar loops, for the tests: input [rows, in] float or double.
at::Tensor fma_chain_linear_reference(const at::Tensor& input, const at::Tensor& weight,
                                      const at::Tensor& bias = at::Tensor());

}  // namespace nmt
