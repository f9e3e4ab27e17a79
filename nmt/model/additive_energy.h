// The additive attention energy as one fused operation (Bahdanau and Luong concat scores):
//
//   e[b, j] = sum_a v[a] tanh(q[b, a] + k[b, j, a])
//
//   query q [batch, A] (W s), keys k [batch, src_len, A] (U h_j), v [A]  ->  e [batch, src_len]
//
// Why fused: written as tensor operations (add, tanh, multiply, sum) the energy makes four passes
// over a fresh [batch, src_len, A] tensor at every decoder step, and its backward as many again;
// at the reference size that was ~140 ms of a ~1,100 ms training step, more than the recurrent
// matrix products. Here the forward makes one pass (and, when a gradient is needed, writes
// t = tanh(q + k) for the backward), and the backward one pass over t:
//
//   u[b, j, a] = g[b, j] v[a] (1 - t[b, j, a]^2)
//   dq[b, a] = sum_j u[b, j, a],   dk[b, j, a] = u[b, j, a],   dv[a] = sum_{b, j} g[b, j] t[b, j, a]
//
// Each row (b, j) is summed in the same fixed order whatever the batch, so a sentence's energies
// do not depend on its neighbours (docs/search.md, "Batch invariance"). The CPU kernel handles
// float and double; other devices and types take the tensor-operation path, same formula.
#pragma once

#include <ATen/core/Tensor.h>

namespace nmt {

/// e = v^T tanh(q + k_j) for every source position; shapes above. Differentiable in all three.
at::Tensor additive_energy(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& v);

/// The same formula as tensor operations (other devices and types; reference for the tests).
at::Tensor additive_energy_reference(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& v);

/// The CPU kernel's tanh for float: |error| < 2e-7 everywhere (tested against std::tanh); exposed
/// for that test. Written so that compilers vectorise loops over it.
float fast_tanh(float x);

}  // namespace nmt
