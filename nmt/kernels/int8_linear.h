// int8 products for opt-in quantized decoding (kernels.h, "int8 products"): the packed weight, the
// quantized rows of an input, and the kernels that multiply them. Internal to nmt/kernels.
//
// Every kernel computes the same exact int32 sums acc[r, n] = sum_k qx[r, k] qw[n, k] (integer
// arithmetic has no rounding, so the order of the sum does not matter) and then the same float
// epilogue, operation for operation:
//
//   y[r, n] = float(acc[r, n]) * (sx[r] * sw[n]) + b[n]        (b = 0 without a bias; no fma)
//
// so every vector kernel equals the scalar reference bit for bit, and a row's result depends on
// its own values only (batch invariance).
#pragma once

#include <ATen/core/Tensor.h>

#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <memory>
#include <vector>

namespace nmt::int8 {

constexpr std::int64_t kPanel = 16;  // output columns per panel
constexpr std::int64_t kGroup = 4;   // k values per 32-bit lane (vpmaddubsw + vpmaddwd, vpdpbusd)
// |qx qw| <= 127 * 127, and VNNI's shifted sums reach 255 * 127 * in: int32 holds them for in up
// to 66,000; the limit leaves room.
constexpr std::int64_t kMaxDepth = 65536;
// Rows quantized and multiplied at a time (the products' callers and the kernels' passes over the
// panels): their bytes stay in L2 while every panel meets them, and the quantized rows' buffer is
// bounded by it rather than by the largest input (an encoder's 32,000 source pieces were 32 MiB,
// twice that with VNNI's unsigned copy, kept by each worker).
constexpr std::int64_t kChunkRows = 192;

/// W [out, in] quantized per output row and packed: for panel p, group g and column c of the
/// panel, data[((p * groups + g) * 16 + c) * 4 + i] = qw[16 p + c, 4 g + i], zero past out and in.
struct Int8Weight {
  std::int64_t out = 0, in = 0, groups = 0, panels = 0;
  at::Tensor data;                  // [panels, groups, 16, 4] int8, 64-byte aligned (ATen's CPU allocator)
  std::vector<float> scales;        // [panels * 16] sw[n] = max_k |W[n, k]| / 127; 0 past out
  std::vector<float> bias;          // [panels * 16] b[n]; 0 past out and without a bias
  std::vector<std::int32_t> shift;  // [panels * 16] 128 sum_k qw[n, k]: VNNI's correction
};

/// The input's rows quantized: qx[r, k] = round_half_even(x[r, k] * (127 / m_r)), m_r = max_k
/// |x[r, k]|, sx[r] = m_r / 127 (a zero row: qx = 0, sx = 0); `unsigned_values` (VNNI) holds
/// qx + 128 as bytes. A row with NaN or an infinity is marked `invalid`: its outputs are NaN.
struct Int8Rows {
  std::int64_t rows = 0, stride = 0;  // stride: groups * 4 bytes a row, zero past in
  std::vector<std::int8_t> values;
  std::vector<std::uint8_t> unsigned_values;
  std::vector<float> scales;
  std::vector<std::uint8_t> invalid;
};

namespace {  // internal linkage: only the files built with -ffp-contract=off use these

// Below it, 127 / max overflows float: a row whose largest magnitude is smaller (|values| < 4e-37)
// is quantized as zeros.
constexpr float kSmallestMax = 127.0f / FLT_MAX;
// Adding and subtracting 1.5 * 2^23 rounds |v| < 2^22 to an integer, to nearest with ties to even
// (float addition's rounding): nearbyint's result without its library call, in loops that vectorise.
constexpr float kRoundToInteger = 12582912.0f;

// One value: round_half_even(x * inverse), which lies in [-127, 127] when inverse = 127 / max
// (x = ±max gives 127 times a factor within an ulp of 1); the clamp only guards that bound.
inline std::int8_t quantize_value(float x, float inverse) {
  const float v = (x * inverse + kRoundToInteger) - kRoundToInteger;
  return static_cast<std::int8_t>(std::min(127.0f, std::max(-127.0f, v)));
}

}  // namespace

/// Which loops run the products: the best this CPU has under NMT_CPU_CAPABILITY, or one chosen by
/// the tests (any the CPU has).
enum class Kernel { portable, avx2, avx512bw, vnni };

/// weight [out, in] float contiguous, bias [out] or null.
Int8Weight quantize_weight(const float* weight, std::int64_t out, std::int64_t in, const float* bias);
/// Rows `ids` [count] of `w` (any order, repeats allowed; each in [0, w.out)) as a weight of their
/// own: each row's bytes, scale, bias and correction copied into its new place. Quantized per row,
/// this is exactly quantize_weight of the float rows W[ids] (a shortlist's rows without the float
/// weights).
Int8Weight select_rows(const Int8Weight& w, const std::int64_t* ids, std::int64_t count);
/// x [rows, in] float contiguous, into `q` (its buffers reused: every value is written).
void quantize_rows(const float* x, std::int64_t rows, std::int64_t in, bool with_unsigned, Int8Rows& q);
/// The same with AVX2 (int8_kernels_x86.cc; every x86 kernel but the portable one takes it): the same
/// bytes, scales and marks. A row's largest magnitude is a maximum, exact in any order; the values
/// are rounded, clamped and converted as quantize_rows does, eight at a time. The scalar loop's
/// maximum does not vectorise, and it cost 2-4 ns a value: as much as the product itself for the
/// 256-wide outputs (the readout, the attention's query).
void quantize_rows_avx2(const float* x, std::int64_t rows, std::int64_t in, bool with_unsigned, Int8Rows& q);

/// y [rows, out] for panels [first, last): the kernel's loops (vector kernels in int8_kernels_x86.cc).
void multiply_portable(const Int8Rows& x, const Int8Weight& w, std::int64_t first, std::int64_t last, float* y);
void multiply_avx2(const Int8Rows& x, const Int8Weight& w, std::int64_t first, std::int64_t last, float* y);
void multiply_avx512bw(const Int8Rows& x, const Int8Weight& w, std::int64_t first, std::int64_t last, float* y);
void multiply_vnni(const Int8Rows& x, const Int8Weight& w, std::int64_t first, std::int64_t last, float* y);

/// The epilogue of one output: float(acc) * (sx * sw) + b, NaN for an invalid row.
float epilogue(std::int32_t acc, float row_scale, bool invalid_row, float weight_scale, float bias);

}  // namespace nmt::int8

namespace nmt {

/// weight [out, in] float on the CPU, bias [out] or undefined, quantized and packed (PackedLinear).
std::shared_ptr<const int8::Int8Weight> quantize_for_int8(const at::Tensor& weight, const at::Tensor& bias);
/// The rows `ids` ([K] int64 on the CPU) of a quantized weight (int8::select_rows).
std::shared_ptr<const int8::Int8Weight> select_int8_rows(const int8::Int8Weight& weight, const at::Tensor& ids);
/// input [..., in] float on the CPU -> [..., out] with the best kernel this CPU runs.
at::Tensor int8_product(const at::Tensor& input, const int8::Int8Weight& weight);

}  // namespace nmt
