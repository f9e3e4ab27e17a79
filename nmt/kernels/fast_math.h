// The kernels' scalar math: exp, tanh and sigmoid for float, branch-free so that loops over them
// vectorise, with their error bounds; std:: for double. Internal to nmt/kernels.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__GNUC__)
#define NMT_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define NMT_ALWAYS_INLINE inline
#endif

namespace nmt::kernel_math {

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

}  // namespace nmt::kernel_math
