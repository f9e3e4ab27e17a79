// Attention's kernels: additive energies (inference; the autograd function is in
// additive_energy_function.cc), dot scores and weighted contexts, over decoder rows that read their
// sentence's memory through an optional row index.
#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <ATen/core/grad_mode.h>

#include <limits>

#include "nmt/kernels/dispatch.h"
#include "nmt/kernels/energy.h"
#include "nmt/kernels/kernels.h"
#include "nmt/kernels/sentence_kernels.h"

namespace nmt {
namespace {

// Checks rows [R] (int64, each in [0, N)) when defined; returns its data on the CPU or nullptr.
const std::int64_t* row_index(const at::Tensor& rows, std::int64_t decoder_rows, std::int64_t sources,
                              const char* what) {
  if (!rows.defined()) {
    TORCH_CHECK(decoder_rows == sources, what, ": ", decoder_rows, " decoder rows but ", sources,
                " source rows and no row index");
    return nullptr;
  }
  TORCH_CHECK(rows.dim() == 1 && rows.size(0) == decoder_rows && rows.scalar_type() == at::kLong && rows.is_cpu() &&
                  rows.is_contiguous(),
              what, ": rows must be a contiguous int64 CPU tensor [", decoder_rows, "], got ", rows.sizes());
  const std::int64_t* index = rows.data_ptr<std::int64_t>();
  for (std::int64_t r = 0; r < decoder_rows; ++r) {
    TORCH_CHECK(index[r] >= 0 && index[r] < sources, what, ": row index ", index[r], " outside [0, ", sources, ")");
  }
  return index;
}

void check_shapes(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& v) {
  TORCH_CHECK(query.dim() == 2 && keys.dim() == 3 && v.dim() == 1, "additive_energy: expected query [rows, A], keys "
              "[sources, src_len, A], v [A], got ranks ", query.dim(), ", ", keys.dim(), ", ", v.dim());
  TORCH_CHECK(keys.size(2) == query.size(1) && v.size(0) == query.size(1),
              "additive_energy: shapes do not match: query ", query.sizes(), ", keys ", keys.sizes(), ", v ", v.sizes());
}

bool has_kernel(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& v) {
  const auto type = keys.scalar_type();
  return (type == at::kFloat || type == at::kDouble) && on_cpu_as(keys, type) && on_cpu_as(query, type) &&
         on_cpu_as(v, type);
}

// A mask [R, S] bool (the real source positions; search's padding is false), when defined, checked
// against the scores' shape.
void check_mask(const at::Tensor& mask, std::int64_t rows, std::int64_t src_len, const char* what) {
  TORCH_CHECK(!mask.defined() || (mask.dim() == 2 && mask.size(0) == rows && mask.size(1) == src_len &&
                                  mask.scalar_type() == at::kBool),
              what, ": mask must be bool [", rows, ", ", src_len, "]");
}

// Scores -inf where the mask (when defined) is false: the tensor path (autograd, other devices).
at::Tensor masked(const at::Tensor& scores, const at::Tensor& mask) {
  return mask.defined() ? scores.masked_fill(mask.logical_not(), -std::numeric_limits<double>::infinity()) : scores;
}

// The mask as the kernels read it: contiguous on the CPU (undefined stays undefined).
at::Tensor mask_on_cpu(const at::Tensor& mask) { return mask.defined() ? mask.to(at::kCPU).contiguous() : mask; }

// One row's scores e [S] with its mask row `real` (or nullptr: every position real): `score(n)`
// scores the first n positions, up to the row's last real one, so its trailing padding is never
// computed; then every masked position is -inf.
template <typename T, typename Score>
void score_real_positions(T* e, const bool* real, std::int64_t src_len, const Score& score) {
  std::int64_t computed = src_len;
  if (real != nullptr) {
    while (computed > 0 && !real[computed - 1]) --computed;
  }
  score(computed);
  for (std::int64_t j = 0; real != nullptr && j < src_len; ++j) {
    if (!real[j]) e[j] = -std::numeric_limits<T>::infinity();
  }
}

// int8 positions (kernels.h): values [N, S, D] int8 and scales [N, S] float, both contiguous on the
// CPU, read by float CPU inputs without gradient (`input`: the query or the weights).
void check_int8_positions(const at::Tensor& input, const at::Tensor& values, const at::Tensor& scales,
                          const char* what) {
  TORCH_CHECK(values.is_cpu() && values.is_contiguous() && scales.defined() && scales.is_cpu() &&
                  scales.is_contiguous() && scales.scalar_type() == at::kFloat &&
                  scales.sizes() == values.sizes().slice(0, 2),
              what, ": int8 positions need contiguous CPU values [N, S, D] and float scales [N, S], got ",
              values.sizes(), " and ", scales.defined() ? scales.sizes() : at::IntArrayRef{});
  TORCH_CHECK(input.scalar_type() == at::kFloat && input.is_cpu() && !input.requires_grad(), what,
              ": int8 positions are read by float CPU inputs without gradient");
}

// Runs body(r, source) for every decoder row r in [0, rows), in parallel, where `source` is the
// memory row it reads (index[r], or r without an index).
template <typename Body>
void for_each_row(std::int64_t rows, const std::int64_t* index, const Body& body) {
  at::parallel_for(0, rows, 1, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t r = begin; r < end; ++r) body(r, index != nullptr ? index[r] : r);
  });
}

// The first position's scale of memory row `source`, or nullptr (positions without scales).
template <typename T>
const T* scales_of(const T* scales, std::int64_t source, std::int64_t src_len) {
  return scales != nullptr ? scales + source * src_len : nullptr;
}

// The kernel path of dot_scores: query [R, D] in T, keys [N, S, D] in K (T, or int8 with `scales`
// [N, S]; nullptr for T keys) -> scores [R, S].
template <typename T, typename K>
at::Tensor dot_scores_on_cpu(const at::Tensor& query, const at::Tensor& keys, const T* scales,
                             const std::int64_t* index, const at::Tensor& mask) {
  const at::Tensor q = query.contiguous(), k = keys.contiguous(), m = mask_on_cpu(mask);
  const bool* mp = m.defined() ? m.data_ptr<bool>() : nullptr;
  const std::int64_t src_len = k.size(1), size = k.size(2);
  at::Tensor e = at::empty({q.size(0), src_len}, q.options());
  const T* qp = q.data_ptr<T>();
  const K* kp = k.data_ptr<K>();
  T* ep = e.data_ptr<T>();
  for_each_row(q.size(0), index, [&](std::int64_t r, std::int64_t source) {
    T* er = ep + r * src_len;
    score_real_positions(er, mp != nullptr ? mp + r * src_len : nullptr, src_len, [&](std::int64_t n) {
      dot_sentence(qp + r * size, kp + source * src_len * size, scales_of(scales, source, src_len), er, n, size);
    });
  });
  return e;
}

// The kernel path of weighted_context: weights [R, S] in T, memory [N, S, M] in K (as above) -> [R, M].
template <typename T, typename K>
at::Tensor weighted_context_on_cpu(const at::Tensor& weights, const at::Tensor& memory, const T* scales,
                                   const std::int64_t* index) {
  const at::Tensor w = weights.contiguous(), m = memory.contiguous();
  const std::int64_t src_len = m.size(1), size = m.size(2);
  at::Tensor c = at::empty({w.size(0), size}, w.options());
  const T* wp = w.data_ptr<T>();
  const K* mp = m.data_ptr<K>();
  T* cp = c.data_ptr<T>();
  for_each_row(w.size(0), index, [&](std::int64_t r, std::int64_t source) {
    context_sentence(wp + r * src_len, mp + source * src_len * size, scales_of(scales, source, src_len),
                     cp + r * size, src_len, size);
  });
  return c;
}

}  // namespace

void run_forward(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const std::int64_t* rows,
                 const bool* mask, at::Tensor& e, at::Tensor& t) {
  const std::int64_t src_len = k.size(1), size = k.size(2);
  const bool keep = t.defined();
  AT_DISPATCH_FLOATING_TYPES(k.scalar_type(), "additive_energy", [&] {
    const scalar_t* qp = q.data_ptr<scalar_t>();
    const scalar_t* kp = k.data_ptr<scalar_t>();
    const scalar_t* vp = v.data_ptr<scalar_t>();
    scalar_t* ep = e.data_ptr<scalar_t>();
    scalar_t* tp = keep ? t.data_ptr<scalar_t>() : nullptr;
    for_each_row(q.size(0), rows, [&](std::int64_t r, std::int64_t source) {
      scalar_t* er = ep + r * src_len;
      score_real_positions(er, mask != nullptr ? mask + r * src_len : nullptr, src_len, [&](std::int64_t n) {
        forward_sentence(qp + r * size, kp + source * src_len * size, vp, er, keep ? tp + r * src_len * size : nullptr,
                         n, size);
      });
    });
  });
}

at::Tensor additive_energy_reference(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& v) {
  check_shapes(query, keys, v);
  return (at::tanh(query.unsqueeze(1) + keys) * v).sum(-1);
}

at::Tensor additive_energy(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& v,
                           const at::Tensor& rows, const at::Tensor& mask) {
  check_shapes(query, keys, v);
  check_mask(mask, query.size(0), keys.size(1), "additive_energy");
  const bool needs_grad =
      at::GradMode::is_enabled() && (query.requires_grad() || keys.requires_grad() || v.requires_grad());
  if (!has_kernel(query, keys, v) || needs_grad) {
    // Autograd and other devices see one key block per decoder row.
    const at::Tensor per_row = rows.defined() ? keys.index_select(0, rows.to(keys.device())) : keys;
    TORCH_CHECK(per_row.size(0) == query.size(0), "additive_energy: ", query.size(0), " query rows but ",
                per_row.size(0), " key rows");
    if (!has_kernel(query, per_row, v)) return masked(additive_energy_reference(query, per_row, v), mask);
    return masked(additive_energy_with_grad(query, per_row, v), mask);
  }
  const std::int64_t* index = row_index(rows, query.size(0), keys.size(0), "additive_energy");
  const at::Tensor q = query.contiguous(), k = keys.contiguous(), w = v.contiguous();
  const at::Tensor m = mask_on_cpu(mask);
  at::Tensor e = at::empty({q.size(0), k.size(1)}, k.options());
  at::Tensor no_tanh;
  run_forward(q, k, w, index, m.defined() ? m.data_ptr<bool>() : nullptr, e, no_tanh);
  return e;
}

at::Tensor dot_scores(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& rows, const at::Tensor& mask,
                      const at::Tensor& key_scales) {
  TORCH_CHECK(query.dim() == 2 && keys.dim() == 3 && keys.size(2) == query.size(1),
              "dot_scores: expected query [rows, D] and keys [sources, src_len, D], got ", query.sizes(), " and ",
              keys.sizes());
  check_mask(mask, query.size(0), keys.size(1), "dot_scores");
  if (keys.scalar_type() == at::kChar) {
    check_int8_positions(query, keys, key_scales, "dot_scores");
    const std::int64_t* index = row_index(rows, query.size(0), keys.size(0), "dot_scores");
    return dot_scores_on_cpu<float, std::int8_t>(query, keys, key_scales.data_ptr<float>(), index, mask);
  }
  TORCH_CHECK(!key_scales.defined(), "dot_scores: key scales belong to int8 keys, got ", keys.scalar_type(), " keys");
  if (!inference_kernels_apply(query, keys)) {  // autograd, other devices: keys gathered per query row
    const at::Tensor rows_keys = rows.defined() ? keys.index_select(0, rows.to(keys.device())) : keys;
    // Elementwise products summed over the last dimension, not a matrix product with one output
    // column: BLAS picks its kernel (and summation order) by the row count (docs/search.md).
    return masked((rows_keys * query.unsqueeze(1)).sum(-1), mask);  // [rows, src_len, D] . [rows, 1, D]
  }
  const std::int64_t* index = row_index(rows, query.size(0), keys.size(0), "dot_scores");
  at::Tensor e;
  AT_DISPATCH_FLOATING_TYPES(keys.scalar_type(), "dot_scores", [&] {
    e = dot_scores_on_cpu<scalar_t, scalar_t>(query, keys, static_cast<const scalar_t*>(nullptr), index, mask);
  });
  return e;
}

at::Tensor weighted_context(const at::Tensor& weights, const at::Tensor& memory, const at::Tensor& rows,
                            const at::Tensor& memory_scales) {
  TORCH_CHECK(weights.dim() == 2 && memory.dim() == 3 && memory.size(1) == weights.size(1),
              "weighted_context: expected weights [rows, src_len] and memory [sources, src_len, M], got ",
              weights.sizes(), " and ", memory.sizes());
  if (memory.scalar_type() == at::kChar) {
    check_int8_positions(weights, memory, memory_scales, "weighted_context");
    const std::int64_t* index = row_index(rows, weights.size(0), memory.size(0), "weighted_context");
    return weighted_context_on_cpu<float, std::int8_t>(weights, memory, memory_scales.data_ptr<float>(), index);
  }
  TORCH_CHECK(!memory_scales.defined(), "weighted_context: memory scales belong to int8 memory, got ",
              memory.scalar_type(), " memory");
  if (!inference_kernels_apply(weights, memory)) {  // autograd, other devices: a batched product
    const at::Tensor rows_memory = rows.defined() ? memory.index_select(0, rows.to(memory.device())) : memory;
    return weights.unsqueeze(1).bmm(rows_memory).squeeze(1);  // [rows, 1, S] x [rows, S, M]
  }
  const std::int64_t* index = row_index(rows, weights.size(0), memory.size(0), "weighted_context");
  at::Tensor c;
  AT_DISPATCH_FLOATING_TYPES(memory.scalar_type(), "weighted_context", [&] {
    c = weighted_context_on_cpu<scalar_t, scalar_t>(weights, memory, static_cast<const scalar_t*>(nullptr), index);
  });
  return c;
}

}  // namespace nmt
