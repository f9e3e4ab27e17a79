// The int8 products' vector loops (int8_linear.h): AVX2, AVX-512BW and AVX-512 VNNI. Each tile
// keeps int32 sums of 16-column panels in registers over the whole depth and ends with the float
// epilogue of int8_linear.h, written with separate multiplies and adds (this file is built with
// -ffp-contract=off, so no fma joins them) in the scalar epilogue's order.
//
// Saturation. vpmaddubsw multiplies unsigned by signed bytes and adds each pair into a signed 16-bit
// value with saturation. With the usual unsigned shift (qx + 128 in [1, 255]) a pair reaches
// 2 * 255 * 127 = 64,770 > 32,767: it would saturate. AVX2 and AVX-512BW avoid the shift instead:
// they multiply |qx| (unsigned, <= 127) by the weight with qx's sign moved onto it (signed, in
// [-127, 127]), which is qx * qw, and a pair is at most 2 * 127 * 127 = 32,258: never saturated.
// vpmaddwd with ones then adds the pairs into int32 exactly. VNNI's vpdpbusd adds its four
// products into int32 with no 16-bit step, so it takes the shift (qx + 128, one byte) and subtracts
// the correction 128 * sum_k qw[n, k] (Int8Weight::shift) at the end: the same exact sums.
#include "nmt/kernels/int8_linear.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define NMT_INT8_X86 1
#define NMT_INT8_AVX2 __attribute__((target("avx2,fma")))
#define NMT_INT8_AVX2_INLINE __attribute__((target("avx2,fma"), always_inline)) inline
#define NMT_INT8_AVX512BW __attribute__((target("avx512f,avx512bw,avx2,fma")))
#define NMT_INT8_AVX512BW_INLINE __attribute__((target("avx512f,avx512bw,avx2,fma"), always_inline)) inline
#define NMT_INT8_VNNI __attribute__((target("avx512f,avx512bw,avx512vnni,avx2,fma")))
#define NMT_INT8_VNNI_INLINE __attribute__((target("avx512f,avx512bw,avx512vnni,avx2,fma"), always_inline)) inline
#endif

namespace nmt::int8 {

#if defined(NMT_INT8_X86)
namespace {

constexpr std::int64_t kPanelBytes = kPanel * kGroup;  // one group of a panel: 64 bytes

inline std::int32_t four_bytes(const void* p) {
  std::int32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace

// ---- The rows' quantization with AVX2 (int8_linear.h; quantize_rows in int8_linear.cc is the
// definition it reproduces).

NMT_INT8_AVX2 void quantize_rows_avx2(const float* x, std::int64_t rows, std::int64_t in, bool with_unsigned,
                                      Int8Rows& q) {
  q.rows = rows;
  q.stride = (in + kGroup - 1) / kGroup * kGroup;
  // Every byte and value below is written: `q` may hold an earlier call's (its buffers are reused).
  q.values.resize(static_cast<std::size_t>(rows * q.stride));
  q.scales.resize(static_cast<std::size_t>(rows));
  q.invalid.resize(static_cast<std::size_t>(rows));
  if (with_unsigned) q.unsigned_values.resize(q.values.size());
  const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  const __m256 largest = _mm256_set1_ps(FLT_MAX);
  const __m128i flip = _mm_set1_epi8(static_cast<char>(0x80));
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * in;
    std::int8_t* row = q.values.data() + r * q.stride;
    std::uint8_t* urow = with_unsigned ? q.unsigned_values.data() + r * q.stride : nullptr;
    // The largest magnitude, and whether every |x| <= FLT_MAX (false for NaN and the infinities;
    // the maximum may lose a NaN, the flag does not).
    __m256 max8 = _mm256_setzero_ps(), finite8 = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
    std::int64_t k = 0;
    for (; k + 8 <= in; k += 8) {
      const __m256 a = _mm256_and_ps(_mm256_loadu_ps(xr + k), magnitude);
      finite8 = _mm256_and_ps(finite8, _mm256_cmp_ps(a, largest, _CMP_LE_OQ));
      max8 = _mm256_max_ps(max8, a);
    }
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, max8);
    bool finite = _mm256_movemask_ps(finite8) == 0xff;
    float max_abs = 0.0f;
    for (const float lane : lanes) max_abs = lane > max_abs ? lane : max_abs;
    for (; k < in; ++k) {
      const float a = std::fabs(xr[k]);
      finite = finite && a <= FLT_MAX;
      max_abs = a > max_abs ? a : max_abs;
    }
    q.invalid[r] = finite ? 0 : 1;
    std::int64_t written = 0;  // values quantized; the rest of the row is zeros
    if (!finite || max_abs < kSmallestMax) {
      q.scales[r] = 0.0f;
    } else {
      const float inverse = 127.0f / max_abs;
      const __m256 inverse8 = _mm256_set1_ps(inverse), round8 = _mm256_set1_ps(kRoundToInteger);
      const __m256 high = _mm256_set1_ps(127.0f), low = _mm256_set1_ps(-127.0f);
      for (; written + 8 <= in; written += 8) {
        // quantize_value, eight at a time: rounded, clamped to [-127, 127], converted exactly.
        const __m256 scaled = _mm256_mul_ps(_mm256_loadu_ps(xr + written), inverse8);
        const __m256 v = _mm256_sub_ps(_mm256_add_ps(scaled, round8), round8);
        const __m256i n = _mm256_cvtps_epi32(_mm256_min_ps(high, _mm256_max_ps(low, v)));
        const __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(n), _mm256_extracti128_si256(n, 1));
        const __m128i bytes = _mm_packs_epi16(words, words);  // the eight values in order, in the low half
        _mm_storel_epi64(reinterpret_cast<__m128i*>(row + written), bytes);
        if (urow != nullptr) _mm_storel_epi64(reinterpret_cast<__m128i*>(urow + written), _mm_xor_si128(bytes, flip));
      }
      for (; written < in; ++written) {
        row[written] = quantize_value(xr[written], inverse);
        if (urow != nullptr) urow[written] = static_cast<std::uint8_t>(static_cast<std::uint8_t>(row[written]) ^ 0x80u);
      }
      q.scales[r] = max_abs / 127.0f;
    }
    std::fill(row + written, row + q.stride, std::int8_t{0});
    if (urow != nullptr) std::fill(urow + written, urow + q.stride, std::uint8_t{0x80});
  }
}

namespace {

// ---- AVX2: a tile of kRows rows x one panel, two registers of 8 columns per row.

NMT_INT8_AVX2_INLINE void store_avx2(const __m256i acc[2], const Int8Rows& x, std::int64_t r, const Int8Weight& w,
                                     std::int64_t column, float* y) {
  const std::int64_t columns = std::min(kPanel, w.out - column);
  __m256 v[2];
  if (x.invalid[r] != 0) {
    v[0] = v[1] = _mm256_set1_ps(std::numeric_limits<float>::quiet_NaN());
  } else {
    const __m256 sx = _mm256_set1_ps(x.scales[r]);
    for (int h = 0; h < 2; ++h) {
      const __m256 scale = _mm256_mul_ps(sx, _mm256_loadu_ps(w.scales.data() + column + 8 * h));
      const __m256 product = _mm256_mul_ps(_mm256_cvtepi32_ps(acc[h]), scale);
      v[h] = _mm256_add_ps(product, _mm256_loadu_ps(w.bias.data() + column + 8 * h));
    }
  }
  float* out = y + r * w.out + column;
  if (columns == kPanel) {  // straight to the output: a memcpy of a run-time size was a libc call per row
    _mm256_storeu_ps(out, v[0]);
    _mm256_storeu_ps(out + 8, v[1]);
    return;
  }
  alignas(32) float row[kPanel];
  _mm256_store_ps(row, v[0]);
  _mm256_store_ps(row + 8, v[1]);
  std::memcpy(out, row, sizeof(float) * static_cast<std::size_t>(columns));
}

template <int kRows>
NMT_INT8_AVX2_INLINE void tile_avx2(const Int8Rows& x, std::int64_t r, const Int8Weight& w, const std::int8_t* bytes,
                                    std::int64_t p, float* y) {
  const std::int8_t* panel = bytes + p * w.groups * kPanelBytes;
  const std::int8_t* q = x.values.data() + r * x.stride;
  const __m256i ones = _mm256_set1_epi16(1);
  __m256i acc[kRows][2];
#pragma GCC unroll 4
  for (int i = 0; i < kRows; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_si256();
  for (std::int64_t g = 0; g < w.groups; ++g) {
    const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + g * kPanelBytes));
    const __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + g * kPanelBytes + 32));
#pragma GCC unroll 4
    for (int i = 0; i < kRows; ++i) {
      const __m256i xb = _mm256_set1_epi32(four_bytes(q + i * x.stride + g * kGroup));
      const __m256i ax = _mm256_abs_epi8(xb);  // |qx|, and the sign goes onto the weights
      const __m256i p0 = _mm256_maddubs_epi16(ax, _mm256_sign_epi8(w0, xb));
      const __m256i p1 = _mm256_maddubs_epi16(ax, _mm256_sign_epi8(w1, xb));
      acc[i][0] = _mm256_add_epi32(acc[i][0], _mm256_madd_epi16(p0, ones));
      acc[i][1] = _mm256_add_epi32(acc[i][1], _mm256_madd_epi16(p1, ones));
    }
  }
#pragma GCC unroll 4
  for (int i = 0; i < kRows; ++i) store_avx2(acc[i], x, r + i, w, p * kPanel, y);
}

// ---- AVX-512: a tile of kRows rows x kPanels panels, one register of 16 columns per panel and row.

NMT_INT8_AVX512BW_INLINE void store_avx512(const __m512i acc, const Int8Rows& x, std::int64_t r, const Int8Weight& w,
                                           std::int64_t column, float* y) {
  const std::int64_t columns = std::min(kPanel, w.out - column);
  const __mmask16 mask = static_cast<__mmask16>((1u << columns) - 1u);
  __m512 v;
  if (x.invalid[r] != 0) {
    v = _mm512_set1_ps(std::numeric_limits<float>::quiet_NaN());
  } else {
    const __m512 scale = _mm512_mul_ps(_mm512_set1_ps(x.scales[r]), _mm512_loadu_ps(w.scales.data() + column));
    // The masked conversion: GCC 12 warns (wrongly) that the unmasked one reads an undefined value.
    const __m512 product = _mm512_mul_ps(_mm512_maskz_cvtepi32_ps(0xFFFF, acc), scale);
    v = _mm512_add_ps(product, _mm512_loadu_ps(w.bias.data() + column));
  }
  _mm512_mask_storeu_ps(y + r * w.out + column, mask, v);
}

template <int kRows, int kPanels>
NMT_INT8_AVX512BW_INLINE void tile_avx512bw(const Int8Rows& x, std::int64_t r, const Int8Weight& w,
                                            const std::int8_t* bytes, std::int64_t p, float* y) {
  const std::int8_t* panel = bytes + p * w.groups * kPanelBytes;
  const std::int64_t panel_size = w.groups * kPanelBytes;
  const std::int8_t* q = x.values.data() + r * x.stride;
  const __m512i ones = _mm512_set1_epi16(1), zero = _mm512_setzero_si512();
  __m512i acc[kRows][kPanels];
#pragma GCC unroll 8
  for (int i = 0; i < kRows; ++i) {
#pragma GCC unroll 2
    for (int j = 0; j < kPanels; ++j) acc[i][j] = zero;
  }
  for (std::int64_t g = 0; g < w.groups; ++g) {
    __m512i wj[kPanels], negated[kPanels];
#pragma GCC unroll 2
    for (int j = 0; j < kPanels; ++j) {
      wj[j] = _mm512_loadu_si512(panel + j * panel_size + g * kPanelBytes);
      negated[j] = _mm512_sub_epi8(zero, wj[j]);
    }
#pragma GCC unroll 8
    for (int i = 0; i < kRows; ++i) {
      const __m512i xb = _mm512_set1_epi32(four_bytes(q + i * x.stride + g * kGroup));
      const __m512i ax = _mm512_abs_epi8(xb);
      const __mmask64 negative = _mm512_movepi8_mask(xb);  // AVX-512 has no vpsignb: -w where qx < 0
#pragma GCC unroll 2
      for (int j = 0; j < kPanels; ++j) {
        const __m512i signed_w = _mm512_mask_blend_epi8(negative, wj[j], negated[j]);
        acc[i][j] = _mm512_add_epi32(acc[i][j], _mm512_madd_epi16(_mm512_maddubs_epi16(ax, signed_w), ones));
      }
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < kRows; ++i) {
#pragma GCC unroll 2
    for (int j = 0; j < kPanels; ++j) store_avx512(acc[i][j], x, r + i, w, (p + j) * kPanel, y);
  }
}

template <int kRows, int kPanels>
NMT_INT8_VNNI_INLINE void tile_vnni(const Int8Rows& x, std::int64_t r, const Int8Weight& w, const std::int8_t* bytes,
                                    std::int64_t p, float* y) {
  const std::int8_t* panel = bytes + p * w.groups * kPanelBytes;
  const std::int64_t panel_size = w.groups * kPanelBytes;
  const std::uint8_t* u = x.unsigned_values.data() + r * x.stride;
  __m512i acc[kRows][kPanels];
#pragma GCC unroll 8
  for (int i = 0; i < kRows; ++i) {
#pragma GCC unroll 2
    for (int j = 0; j < kPanels; ++j) acc[i][j] = _mm512_setzero_si512();
  }
  for (std::int64_t g = 0; g < w.groups; ++g) {
    __m512i wj[kPanels];
#pragma GCC unroll 2
    for (int j = 0; j < kPanels; ++j) wj[j] = _mm512_loadu_si512(panel + j * panel_size + g * kPanelBytes);
#pragma GCC unroll 8
    for (int i = 0; i < kRows; ++i) {
      const __m512i ub = _mm512_set1_epi32(four_bytes(u + i * x.stride + g * kGroup));
#pragma GCC unroll 2
      for (int j = 0; j < kPanels; ++j) acc[i][j] = _mm512_dpbusd_epi32(acc[i][j], ub, wj[j]);
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < kRows; ++i) {
#pragma GCC unroll 2
    for (int j = 0; j < kPanels; ++j) {
      const __m512i shift = _mm512_loadu_si512(w.shift.data() + (p + j) * kPanel);
      store_avx512(_mm512_sub_epi32(acc[i][j], shift), x, r + i, w, (p + j) * kPanel, y);
    }
  }
}

// Rows [r, end) of panels p (and p + 1 when kPanels is 2): full tiles of 8 rows, then the rest.
template <int kPanels>
NMT_INT8_AVX512BW_INLINE void column_avx512bw(const Int8Rows& x, std::int64_t r, std::int64_t end, const Int8Weight& w,
                                              const std::int8_t* bytes, std::int64_t p, float* y) {
  for (; r + 8 <= end; r += 8) tile_avx512bw<8, kPanels>(x, r, w, bytes, p, y);
  switch (end - r) {
    case 7: tile_avx512bw<7, kPanels>(x, r, w, bytes, p, y); break;
    case 6: tile_avx512bw<6, kPanels>(x, r, w, bytes, p, y); break;
    case 5: tile_avx512bw<5, kPanels>(x, r, w, bytes, p, y); break;
    case 4: tile_avx512bw<4, kPanels>(x, r, w, bytes, p, y); break;
    case 3: tile_avx512bw<3, kPanels>(x, r, w, bytes, p, y); break;
    case 2: tile_avx512bw<2, kPanels>(x, r, w, bytes, p, y); break;
    case 1: tile_avx512bw<1, kPanels>(x, r, w, bytes, p, y); break;
    default: break;
  }
}

// The same with VNNI's tiles. 8 rows x 2 panels: GCC 12 spilled accumulators of 12-row tiles to
// the stack around every vpdpbusd (a disassembly showed 18 stores per group).
template <int kPanels>
NMT_INT8_VNNI_INLINE void column_vnni(const Int8Rows& x, std::int64_t r, std::int64_t end, const Int8Weight& w,
                                      const std::int8_t* bytes, std::int64_t p, float* y) {
  for (; r + 8 <= end; r += 8) tile_vnni<8, kPanels>(x, r, w, bytes, p, y);
  switch (end - r) {
    case 7: tile_vnni<7, kPanels>(x, r, w, bytes, p, y); break;
    case 6: tile_vnni<6, kPanels>(x, r, w, bytes, p, y); break;
    case 5: tile_vnni<5, kPanels>(x, r, w, bytes, p, y); break;
    case 4: tile_vnni<4, kPanels>(x, r, w, bytes, p, y); break;
    case 3: tile_vnni<3, kPanels>(x, r, w, bytes, p, y); break;
    case 2: tile_vnni<2, kPanels>(x, r, w, bytes, p, y); break;
    case 1: tile_vnni<1, kPanels>(x, r, w, bytes, p, y); break;
    default: break;
  }
}

}  // namespace

NMT_INT8_AVX2 void multiply_avx2(const Int8Rows& x, const Int8Weight& w, std::int64_t first, std::int64_t last,
                                 float* y) {
  const std::int8_t* bytes = w.data.data_ptr<std::int8_t>();  // once: data_ptr is an out-of-line call
  for (std::int64_t chunk = 0; chunk < x.rows; chunk += kChunkRows) {
    const std::int64_t chunk_end = std::min(x.rows, chunk + kChunkRows);
    for (std::int64_t p = first; p < last; ++p) {
      std::int64_t r = chunk;
      for (; r + 4 <= chunk_end; r += 4) tile_avx2<4>(x, r, w, bytes, p, y);
      switch (chunk_end - r) {
        case 3: tile_avx2<3>(x, r, w, bytes, p, y); break;
        case 2: tile_avx2<2>(x, r, w, bytes, p, y); break;
        case 1: tile_avx2<1>(x, r, w, bytes, p, y); break;
        default: break;
      }
    }
  }
}

NMT_INT8_AVX512BW void multiply_avx512bw(const Int8Rows& x, const Int8Weight& w, std::int64_t first,
                                         std::int64_t last, float* y) {
  const std::int8_t* bytes = w.data.data_ptr<std::int8_t>();  // once: data_ptr is an out-of-line call
  for (std::int64_t chunk = 0; chunk < x.rows; chunk += kChunkRows) {
    const std::int64_t chunk_end = std::min(x.rows, chunk + kChunkRows);
    for (std::int64_t p = first; p < last; p += 2) {
      if (p + 1 < last) {
        column_avx512bw<2>(x, chunk, chunk_end, w, bytes, p, y);
      } else {
        column_avx512bw<1>(x, chunk, chunk_end, w, bytes, p, y);
      }
    }
  }
}

NMT_INT8_VNNI void multiply_vnni(const Int8Rows& x, const Int8Weight& w, std::int64_t first, std::int64_t last,
                                 float* y) {
  const std::int8_t* bytes = w.data.data_ptr<std::int8_t>();  // once: data_ptr is an out-of-line call
  for (std::int64_t chunk = 0; chunk < x.rows; chunk += kChunkRows) {
    const std::int64_t chunk_end = std::min(x.rows, chunk + kChunkRows);
    for (std::int64_t p = first; p < last; p += 2) {
      if (p + 1 < last) {
        column_vnni<2>(x, chunk, chunk_end, w, bytes, p, y);
      } else {
        column_vnni<1>(x, chunk, chunk_end, w, bytes, p, y);
      }
    }
  }
}

#else  // not x86: never chosen (int8_kernels() lists only "portable"), but defined

void multiply_avx2(const Int8Rows& x, const Int8Weight& w, std::int64_t first, std::int64_t last, float* y) {
  multiply_portable(x, w, first, last, y);
}
void multiply_avx512bw(const Int8Rows& x, const Int8Weight& w, std::int64_t first, std::int64_t last, float* y) {
  multiply_portable(x, w, first, last, y);
}
void multiply_vnni(const Int8Rows& x, const Int8Weight& w, std::int64_t first, std::int64_t last, float* y) {
  multiply_portable(x, w, first, last, y);
}
void quantize_rows_avx2(const float* x, std::int64_t rows, std::int64_t in, bool with_unsigned, Int8Rows& q) {
  quantize_rows(x, rows, in, with_unsigned, q);
}

#endif

}  // namespace nmt::int8
