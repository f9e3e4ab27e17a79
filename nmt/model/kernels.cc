#include "nmt/model/kernels.h"

#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <torch/csrc/autograd/custom_function.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "nmt/core/torch_compat.h"

namespace nmt {
namespace {

#if defined(__GNUC__)
#define NMT_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define NMT_ALWAYS_INLINE inline
#endif

// 2^n exp(r) for c in [-87, 0], float, branch-free so that loops over it vectorise: n =
// round(c / ln 2), r = c - n ln 2 (|r| <= ln(2) / 2, ln 2 in two parts), exp(r) by its Taylor
// series to r^kDegree in Horner's order, 2^n from its exponent bits (n in [-126, 0]).
template <int kDegree>
NMT_ALWAYS_INLINE float exp_reduced(float c) {
  constexpr float kInverseFactorials[] = {1.0f, 1.0f, 0.5f, 1.0f / 6, 1.0f / 24, 1.0f / 120, 1.0f / 720, 1.0f / 5040};
  static_assert(kDegree >= 1 && kDegree <= 7, "exp_reduced: degree 1 to 7");
  const float n = static_cast<float>(static_cast<std::int32_t>(c * 1.44269504f - 0.5f));  // round(c / ln 2)
  const float r = (c - n * 0.693145752f) - n * 1.42860677e-6f;
  float p = kInverseFactorials[kDegree];
#pragma GCC unroll 8
  for (int i = kDegree - 1; i >= 0; --i) p = kInverseFactorials[i] + r * p;
  const std::int32_t bits = (static_cast<std::int32_t>(n) + 127) << 23;  // 2^n
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

// exp(y) for y <= 0 in float: exp_reduced to r^7 (relative error < 6e-9 before rounding). y below
// -87 gives exp(-87) = 1.6e-38 (2^n would leave the normal range; next to the 1 that every
// softmax sum holds, that is 0); NaN stays NaN. No select but the NaN one: GCC stops vectorising
// the callers' loops over more.
NMT_ALWAYS_INLINE float exp_nonpositive_finite(float y) {  // y not NaN
  return exp_reduced<7>(y > -87.0f ? y : -87.0f);
}
NMT_ALWAYS_INLINE float exp_nonpositive(float y) {
  const float result = exp_nonpositive_finite(y);
  return y != y ? y : result;
}

// tanh for float, branch-free: sign(x) (1 - e) / (1 + e) with e = exp(-2|x|), |x| clamped at 9
// (where tanh rounds to 1 in float). e = exp_reduced to r^6: 2|x| <= 18 needs no range clamp,
// and the dropped r^7 term (< 1.2e-7 relative) moves tanh by less than 6e-8. Absolute error
// < 1.4e-7 over every float (checked exhaustively, with and without fma); near 0 the error is
// absolute, not relative (tanh(1e-8) gives 0), which is what the energy's sum of v_a tanh(.)
// needs. NaN stays NaN, +-inf give +-1. An earlier version added an odd series for |x| < 0.3 and
// a degree-7 exp: 1.8x the time of this one (the energy is a tenth of a beam step).
NMT_ALWAYS_INLINE float tanh_float(float x) {
  const float ax = std::fabs(x);
  const float e = exp_reduced<6>(-2.0f * (ax < 9.0f ? ax : 9.0f));  // NaN x: handled below
  const float large = (1.0f - e) / (1.0f + e);
  const float result = x < 0.0f ? -large : large;
  return x != x ? x : result;  // NaN in, NaN out (the clamp above would turn it into 1)
}

// sigmoid for float, branch-free: with e = exp(-|x|) in (0, 1], 1 / (1 + e) for x >= 0 and
// e / (1 + e) below. Relative error < 2e-7 (the exp's and two roundings); NaN stays NaN; beyond
// |x| = 87 the clamp gives sigmoid(-x) = 1.6e-38 instead of less, which nothing notices. Written
// as tanh_float is (clamp |x|, NaN last): GCC left exp_nonpositive(-|x|) here unvectorised in the
// AVX2 and AVX-512 builds ("control flow in loop"), and the GRU cell took 15 % of a greedy run.
NMT_ALWAYS_INLINE float sigmoid_float(float x) {
  const float ax = std::fabs(x);
  const float e = exp_reduced<7>(-(ax < 87.0f ? ax : 87.0f));
  const float inverse = 1.0f / (1.0f + e);
  const float result = x >= 0.0f ? inverse : e * inverse;
  return x != x ? x : result;
}

NMT_ALWAYS_INLINE double tanh_of(double x) { return std::tanh(x); }
NMT_ALWAYS_INLINE float tanh_of(float x) { return tanh_float(x); }
NMT_ALWAYS_INLINE double sigmoid_of(double x) { return 1.0 / (1.0 + std::exp(-x)); }
NMT_ALWAYS_INLINE float sigmoid_of(float x) { return sigmoid_float(x); }
NMT_ALWAYS_INLINE double exp_of_finite_nonpositive(double y) { return std::exp(y); }
NMT_ALWAYS_INLINE float exp_of_finite_nonpositive(float y) { return exp_nonpositive_finite(y); }

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

// Dot scores of one decoder row: e[j] = sum_a q[a] k[j, a], summed as energy_rows sums.
template <typename T>
NMT_ALWAYS_INLINE void dot_rows(const T* q, const T* k, T* e, std::int64_t src_len, std::int64_t size) {
  for (std::int64_t j = 0; j < src_len; ++j) {
    const T* kj = k + j * size;
    T lanes[kLanes] = {};
    std::int64_t a = 0;
    for (; a + kLanes <= size; a += kLanes) {
      for (std::int64_t l = 0; l < kLanes; ++l) lanes[l] += q[a + l] * kj[a + l];
    }
    T sum = 0;
    for (; a < size; ++a) sum += q[a] * kj[a];
    for (std::int64_t l = 0; l < kLanes; ++l) sum += lanes[l];
    e[j] = sum;
  }
}

// Context of one decoder row: c = sum_j w[j] m[j, :], positions in order; zero weights (padding,
// exactly 0 after the masked softmax) are skipped, which adds nothing to the sums. Four positions
// are added per pass over c, each element still in position order (c + w_a m_a, then + w_b m_b,
// ...): with one position per pass every multiply-add also loaded and stored c, and the stores
// bounded the kernel (6 % of a beam search step when m holds the decoder's 1024-wide
// projections). Blocking c in registers instead would walk m with a stride of whole rows, which
// at 4 KB per row maps every access to the same cache sets.
template <typename T>
NMT_ALWAYS_INLINE void add_positions(const T* const* rows, const T* weights, int count, T* c, std::int64_t size) {
  if (count == 4) {
    const T *m0 = rows[0], *m1 = rows[1], *m2 = rows[2], *m3 = rows[3];
    const T w0 = weights[0], w1 = weights[1], w2 = weights[2], w3 = weights[3];
    for (std::int64_t i = 0; i < size; ++i) {
      T sum = c[i];
      sum += w0 * m0[i];
      sum += w1 * m1[i];
      sum += w2 * m2[i];
      sum += w3 * m3[i];
      c[i] = sum;
    }
    return;
  }
  for (int p = 0; p < count; ++p) {
    const T* m = rows[p];
    const T w = weights[p];
    for (std::int64_t i = 0; i < size; ++i) c[i] += w * m[i];
  }
}

template <typename T>
NMT_ALWAYS_INLINE void context_rows(const T* w, const T* m, T* c, std::int64_t src_len, std::int64_t size) {
  for (std::int64_t i = 0; i < size; ++i) c[i] = 0;
  const T* rows[4];
  T weights[4];
  int count = 0;
  for (std::int64_t j = 0; j < src_len; ++j) {
    if (w[j] == T(0)) continue;
    rows[count] = m + j * size;
    weights[count] = w[j];
    if (++count == 4) {
      add_positions(rows, weights, count, c, size);
      count = 0;
    }
  }
  add_positions(rows, weights, count, c, size);
}

// log-softmax of one row in place: x - (m + log sum_i exp(x_i - m)), m = max_i x_i. The maximum is
// exact in any order; the sum runs in kLanes partial sums, then the tail, then the lanes. A row
// holding NaN or an infinity (x - x is not 0) takes the plain path with std::exp, as ATen would.
template <typename T>
NMT_ALWAYS_INLINE void log_softmax_row(T* x, std::int64_t size) {
  T lanes_max[kLanes], lanes_probe[kLanes] = {};
  for (std::int64_t l = 0; l < kLanes; ++l) lanes_max[l] = -std::numeric_limits<T>::infinity();
  std::int64_t i = 0;
  for (; i + kLanes <= size; i += kLanes) {
    for (std::int64_t l = 0; l < kLanes; ++l) {
      lanes_max[l] = x[i + l] > lanes_max[l] ? x[i + l] : lanes_max[l];
      lanes_probe[l] += x[i + l] - x[i + l];
    }
  }
  T max = -std::numeric_limits<T>::infinity(), probe = 0;
  for (; i < size; ++i) {
    max = x[i] > max ? x[i] : max;
    probe += x[i] - x[i];
  }
  for (std::int64_t l = 0; l < kLanes; ++l) {
    max = lanes_max[l] > max ? lanes_max[l] : max;
    probe += lanes_probe[l];
  }
  T sum = 0;
  if (probe == T(0)) {
    T lanes[kLanes] = {};
    i = 0;
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
  const T normaliser = max + std::log(sum);
  for (i = 0; i < size; ++i) x[i] -= normaliser;
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

// The float kernels are compiled three times, for AVX-512, AVX2 + FMA and the x86-64 baseline, and
// the best one the CPU supports is chosen once at run time (the library itself is built for the
// baseline, so that it runs everywhere). Other architectures get the portable build only.
struct FloatKernels {
  void (*forward)(const float*, const float*, const float*, float*, float*, std::int64_t, std::int64_t);
  void (*forward_keep)(const float*, const float*, const float*, float*, float*, std::int64_t, std::int64_t);
  void (*backward)(const float*, const float*, const float*, float*, float*, float*, std::int64_t, std::int64_t);
  void (*dot)(const float*, const float*, float*, std::int64_t, std::int64_t);
  void (*context)(const float*, const float*, float*, std::int64_t, std::int64_t);
  void (*log_softmax)(float*, std::int64_t);
  void (*gru_cell)(const float*, const float*, const float*, float*, std::int64_t);
  void (*tanh)(const float*, float*, std::int64_t);
  void (*softmax)(const float*, float*, std::int64_t);
};

#define NMT_FLOAT_KERNELS(suffix, attribute)                                                                    \
  attribute void forward_##suffix(const float* q, const float* k, const float* v, float* e, float* t,          \
                                  std::int64_t s, std::int64_t n) {                                             \
    energy_rows<float, false>(q, k, v, e, t, s, n);                                                             \
  }                                                                                                             \
  attribute void forward_keep_##suffix(const float* q, const float* k, const float* v, float* e, float* t,     \
                                       std::int64_t s, std::int64_t n) {                                        \
    energy_rows<float, true>(q, k, v, e, t, s, n);                                                              \
  }                                                                                                             \
  attribute void backward_##suffix(const float* t, const float* g, const float* v, float* dq, float* dk,       \
                                   float* dv, std::int64_t s, std::int64_t n) {                                 \
    energy_rows_backward<float>(t, g, v, dq, dk, dv, s, n);                                                     \
  }                                                                                                             \
  attribute void dot_##suffix(const float* q, const float* k, float* e, std::int64_t s, std::int64_t n) {      \
    dot_rows<float>(q, k, e, s, n);                                                                             \
  }                                                                                                             \
  attribute void context_##suffix(const float* w, const float* m, float* c, std::int64_t s, std::int64_t n) {  \
    context_rows<float>(w, m, c, s, n);                                                                         \
  }                                                                                                             \
  attribute void log_softmax_##suffix(float* x, std::int64_t n) { log_softmax_row<float>(x, n); }              \
  attribute void gru_cell_##suffix(const float* i, const float* g, const float* h, float* out, std::int64_t n) { \
    gru_cell_row<float>(i, g, h, out, n);                                                                       \
  }                                                                                                             \
  attribute void tanh_##suffix(const float* x, float* y, std::int64_t n) { tanh_row<float>(x, y, n); }          \
  attribute void softmax_##suffix(const float* x, float* y, std::int64_t n) { softmax_row<float>(x, y, n); }

NMT_FLOAT_KERNELS(portable, )
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
NMT_FLOAT_KERNELS(avx2, __attribute__((target("avx2,fma"))))
NMT_FLOAT_KERNELS(avx512, __attribute__((target("avx512f,avx2,fma"))))
#endif

const FloatKernels& float_kernels() {
  static const FloatKernels kernels = [] {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) {
      return FloatKernels{forward_avx512, forward_keep_avx512, backward_avx512, dot_avx512, context_avx512,
                          log_softmax_avx512, gru_cell_avx512, tanh_avx512, softmax_avx512};
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
      return FloatKernels{forward_avx2, forward_keep_avx2, backward_avx2, dot_avx2, context_avx2, log_softmax_avx2,
                          gru_cell_avx2, tanh_avx2, softmax_avx2};
    }
#endif
    return FloatKernels{forward_portable, forward_keep_portable, backward_portable, dot_portable, context_portable,
                       log_softmax_portable, gru_cell_portable, tanh_portable, softmax_portable};
  }();
  return kernels;
}

// One sentence, float (the dispatched kernels) or double (the portable template).
void forward_sentence(const float* q, const float* k, const float* v, float* e, float* t, std::int64_t src_len,
                      std::int64_t size) {
  const auto& kernels = float_kernels();
  (t != nullptr ? kernels.forward_keep : kernels.forward)(q, k, v, e, t, src_len, size);
}
void forward_sentence(const double* q, const double* k, const double* v, double* e, double* t, std::int64_t src_len,
                      std::int64_t size) {
  if (t != nullptr) {
    energy_rows<double, true>(q, k, v, e, t, src_len, size);
  } else {
    energy_rows<double, false>(q, k, v, e, t, src_len, size);
  }
}
void dot_sentence(const float* q, const float* k, float* e, std::int64_t src_len, std::int64_t size) {
  float_kernels().dot(q, k, e, src_len, size);
}
void dot_sentence(const double* q, const double* k, double* e, std::int64_t src_len, std::int64_t size) {
  dot_rows<double>(q, k, e, src_len, size);
}
void context_sentence(const float* w, const float* m, float* c, std::int64_t src_len, std::int64_t size) {
  float_kernels().context(w, m, c, src_len, size);
}
void context_sentence(const double* w, const double* m, double* c, std::int64_t src_len, std::int64_t size) {
  context_rows<double>(w, m, c, src_len, size);
}
void log_softmax_sentence(float* x, std::int64_t size) { float_kernels().log_softmax(x, size); }
void log_softmax_sentence(double* x, std::int64_t size) { log_softmax_row<double>(x, size); }
void gru_cell_sentence(const float* i, const float* g, const float* h, float* out, std::int64_t size) {
  float_kernels().gru_cell(i, g, h, out, size);
}
void gru_cell_sentence(const double* i, const double* g, const double* h, double* out, std::int64_t size) {
  gru_cell_row<double>(i, g, h, out, size);
}
void tanh_sentence(const float* x, float* y, std::int64_t size) { float_kernels().tanh(x, y, size); }
void tanh_sentence(const double* x, double* y, std::int64_t size) { tanh_row<double>(x, y, size); }
void softmax_sentence(const float* x, float* y, std::int64_t size) { float_kernels().softmax(x, y, size); }
void softmax_sentence(const double* x, double* y, std::int64_t size) { softmax_row<double>(x, y, size); }
void backward_sentence(const float* t, const float* g, const float* v, float* dq, float* dk, float* dv,
                       std::int64_t src_len, std::int64_t size) {
  float_kernels().backward(t, g, v, dq, dk, dv, src_len, size);
}
void backward_sentence(const double* t, const double* g, const double* v, double* dq, double* dk, double* dv,
                       std::int64_t src_len, std::int64_t size) {
  energy_rows_backward<double>(t, g, v, dq, dk, dv, src_len, size);
}

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

bool on_cpu_as(const at::Tensor& t, at::ScalarType type) {
  return !t.defined() || (t.device().is_cpu() && t.scalar_type() == type);
}

bool has_kernel(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& v) {
  const auto type = keys.scalar_type();
  return (type == at::kFloat || type == at::kDouble) && on_cpu_as(keys, type) && on_cpu_as(query, type) &&
         on_cpu_as(v, type);
}

// e [R, src_len] from contiguous q [R, A], k [N, src_len, A], v; t [R, src_len, A] when defined
// (then rows is nullptr: the autograd path gathers first). mask [R, src_len] (contiguous bool) or
// nullptr: positions after a row's last true one are not computed; every false one is -inf.
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
    at::parallel_for(0, q.size(0), 1, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t r = begin; r < end; ++r) {
        const std::int64_t source = rows != nullptr ? rows[r] : r;
        const bool* real = mask != nullptr ? mask + r * src_len : nullptr;
        std::int64_t computed = src_len;  // positions up to the row's last real one
        if (real != nullptr) {
          while (computed > 0 && !real[computed - 1]) --computed;
        }
        scalar_t* er = ep + r * src_len;
        forward_sentence(qp + r * size, kp + source * src_len * size, vp, er,
                         keep ? tp + r * src_len * size : nullptr, computed, size);
        for (std::int64_t j = 0; real != nullptr && j < src_len; ++j) {
          if (!real[j]) er[j] = -std::numeric_limits<scalar_t>::infinity();
        }
      }
    });
  });
}

// dq [batch, A], dk [batch, src_len, A], dv [A] from t and g [batch, src_len].
void run_backward(const at::Tensor& t, const at::Tensor& g, const at::Tensor& v, at::Tensor& dq, at::Tensor& dk,
                  at::Tensor& dv) {
  const std::int64_t batch = t.size(0), src_len = t.size(1), size = t.size(2);
  at::Tensor dv_rows = at::zeros({batch, size}, t.options());  // each sentence's share, summed in order below
  AT_DISPATCH_FLOATING_TYPES(t.scalar_type(), "additive_energy_backward", [&] {
    const scalar_t* tp = t.data_ptr<scalar_t>();
    const scalar_t* gp = g.data_ptr<scalar_t>();
    const scalar_t* vp = v.data_ptr<scalar_t>();
    scalar_t* dqp = dq.data_ptr<scalar_t>();
    scalar_t* dkp = dk.data_ptr<scalar_t>();
    scalar_t* dvp = dv_rows.data_ptr<scalar_t>();
    at::parallel_for(0, batch, 1, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t b = begin; b < end; ++b) {
        const std::int64_t block = b * src_len * size;
        backward_sentence(tp + block, gp + b * src_len, vp, dqp + b * size, dkp + block, dvp + b * size, src_len,
                          size);
      }
    });
  });
  dv = dv_rows.sum(0);
}

class AdditiveEnergyFunction : public torch::autograd::Function<AdditiveEnergyFunction> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& query, const at::Tensor& keys,
                            const at::Tensor& v) {
    const at::Tensor q = query.contiguous(), k = keys.contiguous(), w = v.contiguous();
    at::Tensor e = at::empty({k.size(0), k.size(1)}, k.options());
    at::Tensor t = at::empty_like(k);
    run_forward(q, k, w, nullptr, nullptr, e, t);
    ctx->save_for_backward({t, w});
    return e;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor& t = saved[0];
    const at::Tensor& v = saved[1];
    const at::Tensor g = grads[0].contiguous();
    at::Tensor dq = at::zeros({t.size(0), t.size(2)}, t.options());
    at::Tensor dk = at::empty_like(t);
    at::Tensor dv;
    run_backward(t, g, v, dq, dk, dv);
    return {dq, dk, dv};
  }
};

}  // namespace

float fast_tanh(float x) { return tanh_float(x); }
float fast_sigmoid(float x) { return sigmoid_float(x); }
float fast_exp_nonpositive(float y) { return exp_nonpositive(y); }

at::Tensor additive_energy_reference(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& v) {
  check_shapes(query, keys, v);
  return (at::tanh(query.unsqueeze(1) + keys) * v).sum(-1);
}

at::Tensor additive_energy(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& v,
                           const at::Tensor& rows, const at::Tensor& mask) {
  check_shapes(query, keys, v);
  TORCH_CHECK(!mask.defined() || (mask.dim() == 2 && mask.size(0) == query.size(0) && mask.size(1) == keys.size(1) &&
                                  mask.scalar_type() == at::kBool),
              "additive_energy: mask must be bool [", query.size(0), ", ", keys.size(1), "]");
  const auto masked = [&](const at::Tensor& e) {
    return mask.defined() ? e.masked_fill(mask.logical_not(), -std::numeric_limits<double>::infinity()) : e;
  };
  const bool needs_grad =
      at::GradMode::is_enabled() && (query.requires_grad() || keys.requires_grad() || v.requires_grad());
  if (!has_kernel(query, keys, v) || needs_grad) {
    // Autograd and other devices see one key block per decoder row.
    const at::Tensor per_row = rows.defined() ? keys.index_select(0, rows.to(keys.device())) : keys;
    TORCH_CHECK(per_row.size(0) == query.size(0), "additive_energy: ", query.size(0), " query rows but ",
                per_row.size(0), " key rows");
    if (!has_kernel(query, per_row, v)) return masked(additive_energy_reference(query, per_row, v));
    return masked(apply_autograd_function<AdditiveEnergyFunction>(query, per_row, v));
  }
  const std::int64_t* index = row_index(rows, query.size(0), keys.size(0), "additive_energy");
  const at::Tensor q = query.contiguous(), k = keys.contiguous(), w = v.contiguous();
  const at::Tensor m = mask.defined() ? mask.to(at::kCPU).contiguous() : mask;
  at::Tensor e = at::empty({q.size(0), k.size(1)}, k.options());
  at::Tensor no_tanh;
  run_forward(q, k, w, index, m.defined() ? m.data_ptr<bool>() : nullptr, e, no_tanh);
  return e;
}

bool inference_kernels_apply(const at::Tensor& a, const at::Tensor& b) {
  const auto type = a.scalar_type();
  if (type != at::kFloat && type != at::kDouble) return false;
  if (!on_cpu_as(a, type) || !on_cpu_as(b, type)) return false;
  return !at::GradMode::is_enabled() || !(a.requires_grad() || (b.defined() && b.requires_grad()));
}

at::Tensor dot_scores(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& rows) {
  TORCH_CHECK(query.dim() == 2 && keys.dim() == 3 && keys.size(2) == query.size(1),
              "dot_scores: expected query [rows, D] and keys [sources, src_len, D], got ", query.sizes(), " and ",
              keys.sizes());
  if (!inference_kernels_apply(query, keys)) {  // autograd, other devices: keys gathered per query row
    const at::Tensor rows_keys = rows.defined() ? keys.index_select(0, rows.to(keys.device())) : keys;
    // Elementwise products summed over the last dimension, not a matrix product with one output
    // column: BLAS picks its kernel (and summation order) by the row count (docs/search.md).
    return (rows_keys * query.unsqueeze(1)).sum(-1);  // [rows, src_len, D] . [rows, 1, D]
  }
  const std::int64_t* index = row_index(rows, query.size(0), keys.size(0), "dot_scores");
  const at::Tensor q = query.contiguous(), k = keys.contiguous();
  const std::int64_t src_len = k.size(1), size = k.size(2);
  at::Tensor e = at::empty({q.size(0), src_len}, k.options());
  AT_DISPATCH_FLOATING_TYPES(k.scalar_type(), "dot_scores", [&] {
    const scalar_t* qp = q.data_ptr<scalar_t>();
    const scalar_t* kp = k.data_ptr<scalar_t>();
    scalar_t* ep = e.data_ptr<scalar_t>();
    at::parallel_for(0, q.size(0), 1, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t r = begin; r < end; ++r) {
        const std::int64_t source = index != nullptr ? index[r] : r;
        dot_sentence(qp + r * size, kp + source * src_len * size, ep + r * src_len, src_len, size);
      }
    });
  });
  return e;
}

at::Tensor weighted_context(const at::Tensor& weights, const at::Tensor& memory, const at::Tensor& rows) {
  TORCH_CHECK(weights.dim() == 2 && memory.dim() == 3 && memory.size(1) == weights.size(1),
              "weighted_context: expected weights [rows, src_len] and memory [sources, src_len, M], got ",
              weights.sizes(), " and ", memory.sizes());
  if (!inference_kernels_apply(weights, memory)) {  // autograd, other devices: a batched product
    const at::Tensor rows_memory = rows.defined() ? memory.index_select(0, rows.to(memory.device())) : memory;
    return weights.unsqueeze(1).bmm(rows_memory).squeeze(1);  // [rows, 1, S] x [rows, S, M]
  }
  const std::int64_t* index = row_index(rows, weights.size(0), memory.size(0), "weighted_context");
  const at::Tensor w = weights.contiguous(), m = memory.contiguous();
  const std::int64_t src_len = m.size(1), size = m.size(2);
  at::Tensor c = at::empty({w.size(0), size}, m.options());
  AT_DISPATCH_FLOATING_TYPES(m.scalar_type(), "weighted_context", [&] {
    const scalar_t* wp = w.data_ptr<scalar_t>();
    const scalar_t* mp = m.data_ptr<scalar_t>();
    scalar_t* cp = c.data_ptr<scalar_t>();
    at::parallel_for(0, w.size(0), 1, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t r = begin; r < end; ++r) {
        const std::int64_t source = index != nullptr ? index[r] : r;
        context_sentence(wp + r * src_len, mp + source * src_len * size, cp + r * size, src_len, size);
      }
    });
  });
  return c;
}

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

namespace {

// y = f(x) row by row over the last dimension of a CPU float or double tensor: row_kernel(x_row,
// y_row, size) is called with one of the *_sentence overloads for the tensor's type.
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

}  // namespace

at::Tensor tanh_rows(const at::Tensor& x) {
  if (!inference_kernels_apply(x, at::Tensor()) || x.dim() == 0) return at::tanh(x);
  return map_rows(x, [](const auto* in, auto* out, std::int64_t size) { tanh_sentence(in, out, size); });
}

at::Tensor softmax_last(const at::Tensor& scores) {
  if (!inference_kernels_apply(scores, at::Tensor()) || scores.dim() == 0) return scores.softmax(/*dim=*/-1);
  return map_rows(scores, [](const auto* in, auto* out, std::int64_t size) { softmax_sentence(in, out, size); });
}

at::Tensor log_softmax_last(at::Tensor logits) {
  if (!inference_kernels_apply(logits, at::Tensor()) || logits.dim() != 2 || !logits.is_contiguous()) {
    return logits.log_softmax(/*dim=*/-1);
  }
  const std::int64_t size = logits.size(1);
  AT_DISPATCH_FLOATING_TYPES(logits.scalar_type(), "log_softmax_last", [&] {
    scalar_t* x = logits.data_ptr<scalar_t>();
    at::parallel_for(0, logits.size(0), 1, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t r = begin; r < end; ++r) log_softmax_sentence(x + r * size, size);
    });
  });
  return logits;
}

}  // namespace nmt
