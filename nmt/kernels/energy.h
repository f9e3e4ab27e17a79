// The additive energy's forward loop, shared by the inference kernel and the autograd function.
// Internal to nmt/kernels.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace nmt {

// e [R, src_len] from contiguous q [R, A], k [N, src_len, A], v; t [R, src_len, A] when defined
// (then rows is nullptr: the autograd path gathers first). mask [R, src_len] (contiguous bool) or
// nullptr: positions after a row's last true one are not computed; every false one is -inf.
void run_forward(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const std::int64_t* rows,
                 const bool* mask, at::Tensor& e, at::Tensor& t);

/// The energy with autograd (AdditiveEnergyFunction): query [R, A], keys [R, S, A], v [A] on the
/// CPU, float or double -> e [R, S]; keeps tanh(q + k) for the backward.
at::Tensor additive_energy_with_grad(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& v);

}  // namespace nmt
