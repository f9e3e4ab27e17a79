// The kernels' loops over one row (one sentence, one decoder row): additive energies and their
// backward, dot scores, contexts, log-softmax, the GRU cell, tanh and the masked softmax. Templates
// on the scalar type, instantiated by sentence_kernels.cc (float three times, for each CPU level).
// Each sums in a fixed order whatever the row's neighbours: batch invariance (docs/search.md).
// Internal to nmt/kernels.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "nmt/kernels/fast_math.h"
#include "nmt/kernels/top_candidates.h"

namespace nmt::kernel_math {

// Energies of one sentence: e[j] = sum_a v[a] tanh(q[a] + k[j, a]) for j < src_len, optionally
// keeping tanh(q + k) in t [src_len, A]. The sum over a runs in kLanes interleaved partial sums,
// then the tail, then the lanes in a fixed order: the same order for every row and batch.
constexpr std::int64_t kLanes = 16;

template <typename T, bool kKeepTanh>
NMT_ALWAYS_INLINE void energy_rows(const T* q, const T* k, const T* v, T* e, T* t, std::int64_t src_len,
                                   std::int64_t size) {
  for (std::int64_t j = 0; j < src_len; ++j) {
    const T* kj = k + j * size;
    T* tj = kKeepTanh ? t + j * size : nullptr;
    T lanes[kLanes] = {};
    std::int64_t a = 0;
    for (; a + kLanes <= size; a += kLanes) {
      for (std::int64_t l = 0; l < kLanes; ++l) {
        const T h = tanh_of(q[a + l] + kj[a + l]);
        if constexpr (kKeepTanh) tj[a + l] = h;
        lanes[l] += v[a + l] * h;
      }
    }
    T sum = 0;
    for (; a < size; ++a) {
      const T h = tanh_of(q[a] + kj[a]);
      if constexpr (kKeepTanh) tj[a] = h;
      sum += v[a] * h;
    }
    for (std::int64_t l = 0; l < kLanes; ++l) sum += lanes[l];
    e[j] = sum;
  }
}

// Backward of one sentence: u = g[j] v[a] (1 - t^2); dk = u; dq += u; dv += g[j] t.
template <typename T>
NMT_ALWAYS_INLINE void energy_rows_backward(const T* t, const T* g, const T* v, T* dq, T* dk, T* dv,
                                            std::int64_t src_len, std::int64_t size) {
  for (std::int64_t j = 0; j < src_len; ++j) {
    const T gj = g[j];
    const T* tj = t + j * size;
    T* dkj = dk + j * size;
    for (std::int64_t a = 0; a < size; ++a) {
      const T u = gj * v[a] * (T(1) - tj[a] * tj[a]);
      dkj[a] = u;
      dq[a] += u;
      dv[a] += gj * tj[a];
    }
  }
}

// Dot scores of one decoder row: e[j] = sum_a q[a] k[j, a], summed as energy_rows sums. Keys K are
// T, or int8 positions (kernels.h, "int8 positions") with one scale each, k[j, a] = s[j] k8[j, a]:
// a byte's value is exact in T, the sum runs in the same order, and the scale is applied once per
// score, e[j] = s[j] sum_a q[a] k8[j, a]. `scales` is nullptr for T keys.
template <typename T, typename K>
NMT_ALWAYS_INLINE void dot_rows(const T* q, const K* k, const T* scales, T* e, std::int64_t src_len,
                                std::int64_t size) {
  for (std::int64_t j = 0; j < src_len; ++j) {
    const K* kj = k + j * size;
    T lanes[kLanes] = {};
    std::int64_t a = 0;
    for (; a + kLanes <= size; a += kLanes) {
      for (std::int64_t l = 0; l < kLanes; ++l) lanes[l] += q[a + l] * static_cast<T>(kj[a + l]);
    }
    T sum = 0;
    for (; a < size; ++a) sum += q[a] * static_cast<T>(kj[a]);
    for (std::int64_t l = 0; l < kLanes; ++l) sum += lanes[l];
    e[j] = scales != nullptr ? scales[j] * sum : sum;
  }
}

// Context of one decoder row: c = sum_j w[j] m[j, :], positions in order; zero weights (padding,
// exactly 0 after the masked softmax) are skipped, which adds nothing to the sums. Four positions
// are added per pass over c, each element still in position order (c + w_a m_a, then + w_b m_b,
// ...): with one position per pass every multiply-add also loaded and stored c, and the stores
// bounded the kernel (6 % of a beam search step when m holds the decoder's 1024-wide
// projections). Blocking c in registers instead would walk m with a stride of whole rows, which
// at 4 KB per row maps every access to the same cache sets. Memory K is T, or int8 positions as in
// dot_rows, whose scale is folded into the weight: c += (w[j] s[j]) m8[j, :].
template <typename T, typename K>
NMT_ALWAYS_INLINE void add_positions(const K* const* rows, const T* weights, int count, T* c, std::int64_t size) {
  if (count == 4) {
    const K *m0 = rows[0], *m1 = rows[1], *m2 = rows[2], *m3 = rows[3];
    const T w0 = weights[0], w1 = weights[1], w2 = weights[2], w3 = weights[3];
    for (std::int64_t i = 0; i < size; ++i) {
      T sum = c[i];
      sum += w0 * static_cast<T>(m0[i]);
      sum += w1 * static_cast<T>(m1[i]);
      sum += w2 * static_cast<T>(m2[i]);
      sum += w3 * static_cast<T>(m3[i]);
      c[i] = sum;
    }
    return;
  }
  for (int p = 0; p < count; ++p) {
    const K* m = rows[p];
    const T w = weights[p];
    for (std::int64_t i = 0; i < size; ++i) c[i] += w * static_cast<T>(m[i]);
  }
}

template <typename T, typename K>
NMT_ALWAYS_INLINE void context_rows(const T* w, const K* m, const T* scales, T* c, std::int64_t src_len,
                                    std::int64_t size) {
  for (std::int64_t i = 0; i < size; ++i) c[i] = 0;
  const K* rows[4];
  T weights[4];
  int count = 0;
  for (std::int64_t j = 0; j < src_len; ++j) {
    if (w[j] == T(0)) continue;
    rows[count] = m + j * size;
    weights[count] = scales != nullptr ? w[j] * scales[j] : w[j];
    if (++count == 4) {
      add_positions(rows, weights, count, c, size);
      count = 0;
    }
  }
  add_positions(rows, weights, count, c, size);
}

// The first pass of a row's log-softmax normaliser: its maximum m = max_i x_i (NaN ignored; exact
// in any order) and whether every x_i - x_i is 0 (no NaN, no infinity: the return value).
template <typename T>
NMT_ALWAYS_INLINE bool row_maximum(const T* x, std::int64_t size, T& max) {
  T lanes_max[kLanes], lanes_probe[kLanes] = {};
  for (std::int64_t l = 0; l < kLanes; ++l) lanes_max[l] = -std::numeric_limits<T>::infinity();
  std::int64_t i = 0;
  for (; i + kLanes <= size; i += kLanes) {
    for (std::int64_t l = 0; l < kLanes; ++l) {
      lanes_max[l] = x[i + l] > lanes_max[l] ? x[i + l] : lanes_max[l];
      lanes_probe[l] += x[i + l] - x[i + l];
    }
  }
  max = -std::numeric_limits<T>::infinity();
  T probe = 0;
  for (; i < size; ++i) {
    max = x[i] > max ? x[i] : max;
    probe += x[i] - x[i];
  }
  for (std::int64_t l = 0; l < kLanes; ++l) {
    max = lanes_max[l] > max ? lanes_max[l] : max;
    probe += lanes_probe[l];
  }
  return probe == T(0);
}

// The normaliser from the row's maximum (row_maximum): m + log sum_i exp(x_i - m), the sum in
// kLanes partial sums, then the tail, then the lanes. A row holding NaN or an infinity takes the
// plain path with std::exp, as ATen would (NaN anywhere: a NaN normaliser, and `max` NaN).
template <typename T>
NMT_ALWAYS_INLINE T normaliser_from_maximum(const T* x, std::int64_t size, bool finite, T& max) {
  T sum = 0;
  std::int64_t i = 0;
  if (finite) {
    T lanes[kLanes] = {};
    for (; i + kLanes <= size; i += kLanes) {
      for (std::int64_t l = 0; l < kLanes; ++l) lanes[l] += exp_of_finite_nonpositive(x[i + l] - max);
    }
    for (; i < size; ++i) sum += exp_of_finite_nonpositive(x[i] - max);
    for (std::int64_t l = 0; l < kLanes; ++l) sum += lanes[l];
  } else {
    for (i = 0; i < size; ++i) {
      if (x[i] != x[i]) max = x[i];  // NaN anywhere: NaN everywhere
    }
    for (i = 0; i < size; ++i) sum += std::exp(x[i] - max);
  }
  return max + std::log(sum);
}

// The normaliser of one row's log-softmax, m + log sum_i exp(x_i - m), m = max_i x_i (returned in
// `max`).
template <typename T>
NMT_ALWAYS_INLINE T log_softmax_normaliser(const T* x, std::int64_t size, T& max) {
  const bool finite = row_maximum(x, size, max);
  return normaliser_from_maximum(x, size, finite, max);
}

// The same normaliser with the largest value of every kRankingBlock values kept (block_max
// [ceil(size / kRankingBlock)], NaN ignored), for ranking the row without writing it
// (top_candidates.h). The maxima come from the first pass's own loads (whole blocks in fixed-size
// loops, so that they vectorise; the last, partial block one value at a time); the row's maximum is
// theirs, exact in any order, so the normaliser has log_softmax_normaliser's bits.
template <typename T>
NMT_ALWAYS_INLINE T log_softmax_normaliser_by_block(const T* x, std::int64_t size, T* block_max) {
  static_assert(kRankingBlock % kLanes == 0, "a block is whole lanes");
  constexpr T kMinusInfinity = -std::numeric_limits<T>::infinity();
  T max = kMinusInfinity, probe = 0;
  T lanes_probe[kLanes] = {};
  std::int64_t first = 0;
  for (; first + kRankingBlock <= size; first += kRankingBlock) {
    T lanes_max[kLanes];
    for (std::int64_t l = 0; l < kLanes; ++l) lanes_max[l] = kMinusInfinity;
    for (std::int64_t step = 0; step < kRankingBlock / kLanes; ++step) {
      const T* xs = x + first + step * kLanes;
      for (std::int64_t l = 0; l < kLanes; ++l) {
        lanes_max[l] = xs[l] > lanes_max[l] ? xs[l] : lanes_max[l];
        lanes_probe[l] += xs[l] - xs[l];
      }
    }
    for (std::int64_t width = kLanes / 2; width > 0; width /= 2) {  // the block's maximum, halving
      for (std::int64_t l = 0; l < width; ++l) {
        lanes_max[l] = lanes_max[l + width] > lanes_max[l] ? lanes_max[l + width] : lanes_max[l];
      }
    }
    block_max[first / kRankingBlock] = lanes_max[0];
    max = lanes_max[0] > max ? lanes_max[0] : max;
  }
  if (first < size) {
    T m = kMinusInfinity;
    for (std::int64_t i = first; i < size; ++i) {
      m = x[i] > m ? x[i] : m;
      probe += x[i] - x[i];
    }
    block_max[first / kRankingBlock] = m;
    max = m > max ? m : max;
  }
  for (std::int64_t l = 0; l < kLanes; ++l) probe += lanes_probe[l];
  return normaliser_from_maximum(x, size, probe == T(0), max);
}

// log-softmax of one row in place: x - log_softmax_normaliser(x).
template <typename T>
NMT_ALWAYS_INLINE void log_softmax_row(T* x, std::int64_t size) {
  T max;
  const T normaliser = log_softmax_normaliser(x, size, max);
  for (std::int64_t i = 0; i < size; ++i) x[i] -= normaliser;
}

// Greedy search's choice from one row of logits without writing its log-softmax: the first i with
// the largest r + (x_i - N) (N the normaliser above, both sums in T), and that value; NaN values
// never rank, and a row of them gives (-inf, 0). The bits of log_softmax_row followed by a scan
// for the first maximum of r + log p: v(x) = r + (x - N) never decreases as x grows, so the largest
// v is v(max), and the scan stops at the first i that reaches it (x_i may be below the maximum and
// still round to it: the first such i is the one to take).
template <typename T>
NMT_ALWAYS_INLINE void best_of_log_softmax_row(const T* x, std::int64_t size, T r, T& score, std::int64_t& id) {
  T max;
  const T normaliser = log_softmax_normaliser(x, size, max);
  const T best = r + (max - normaliser);
  score = -std::numeric_limits<T>::infinity();
  id = 0;
  if (best != best) return;  // NaN: every value is NaN (a NaN normaliser or offset)
  std::int64_t i = 0;
  for (; i + kLanes <= size; i += kLanes) {  // a block without an exit vectorises; then its first hit
    bool hit = false;
    for (std::int64_t l = 0; l < kLanes; ++l) hit |= r + (x[i + l] - normaliser) == best;
    if (hit) break;
  }
  for (; i < size; ++i) {
    if (r + (x[i] - normaliser) == best) {
      score = best;
      id = i;
      return;
    }
  }
}

// PyTorch's GRU cell on one row: r = sigmoid(i_r + g_r), z = sigmoid(i_z + g_z),
// n = tanh(i_n + r g_n), h' = (h - n) z + n, with i = [i_r; i_z; i_n] and g alike ([3D] each).
// Elementwise: every element takes the same formula whatever its row or the row count.
template <typename T>
NMT_ALWAYS_INLINE void gru_cell_row(const T* i, const T* g, const T* h, T* out, std::int64_t size) {
  for (std::int64_t a = 0; a < size; ++a) {
    const T r = sigmoid_of(i[a] + g[a]);
    const T z = sigmoid_of(i[size + a] + g[size + a]);
    const T n = tanh_of(i[2 * size + a] + r * g[2 * size + a]);
    out[a] = (h[a] - n) * z + n;
  }
}

template <typename T>
NMT_ALWAYS_INLINE void tanh_row(const T* x, T* y, std::int64_t size) {
  for (std::int64_t a = 0; a < size; ++a) y[a] = tanh_of(x[a]);
}

// Masked softmax of one row: y_j = exp(x_j - m) / sum_j' exp(x_j' - m), m = max_j x_j, with
// exp(-inf) = 0 exactly (masked positions). The sum runs in kLanes partial sums by position
// (lane j mod kLanes), then the lanes in order, with no separate tail: a row padded with more -inf
// positions adds only exact zeros, so a sentence gets the same weights whatever its batch's padded
// width. NaN or +inf anywhere gives NaN everywhere, as ATen's softmax does.
template <typename T>
NMT_ALWAYS_INLINE void softmax_row(const T* x, T* y, std::int64_t size) {
  constexpr T kMinusInfinity = -std::numeric_limits<T>::infinity();
  T max = kMinusInfinity;
  bool nan = false;
  for (std::int64_t j = 0; j < size; ++j) {
    max = x[j] > max ? x[j] : max;
    nan = nan || x[j] != x[j];
  }
  if (nan || max == -kMinusInfinity) {  // +inf: inf - inf is NaN in ATen too
    for (std::int64_t j = 0; j < size; ++j) y[j] = std::numeric_limits<T>::quiet_NaN();
    return;
  }
  T lanes[kLanes] = {};
  for (std::int64_t j = 0; j < size; j += kLanes) {
    const std::int64_t count = size - j < kLanes ? size - j : kLanes;
    for (std::int64_t l = 0; l < count; ++l) {
      const T value = x[j + l];
      y[j + l] = value == kMinusInfinity ? T(0) : exp_of_finite_nonpositive(value - max);
      lanes[l] += y[j + l];
    }
  }
  T sum = 0;
  for (std::int64_t l = 0; l < kLanes; ++l) sum += lanes[l];
  const T inverse = T(1) / sum;  // every position masked: 1 / 0, and 0 * inf = NaN as in ATen
  for (std::int64_t j = 0; j < size; ++j) y[j] *= inverse;
}

}  // namespace nmt::kernel_math
