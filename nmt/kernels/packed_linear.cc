#include "nmt/kernels/kernels.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/GradMode.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "nmt/kernels/dispatch.h"
#include "nmt/kernels/int8_linear.h"

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define NMT_HAS_AVX2_KERNEL 1
#define NMT_AVX2 __attribute__((target("avx2,fma")))
#define NMT_AVX2_INLINE __attribute__((target("avx2,fma"), always_inline)) inline
#define NMT_AVX512 __attribute__((target("avx512f,avx2,fma")))
#define NMT_AVX512_INLINE __attribute__((target("avx512f,avx2,fma"), always_inline)) inline
#endif

namespace nmt {

// W [out, in] as panels: data[p][k][c] = W[16 p + c, k], zero for columns past `out`.
struct PackedWeight {
  std::int64_t out = 0, in = 0, panels = 0;
  at::Tensor data;  // [panels, in, 16] float, 64-byte aligned (ATen's CPU allocator)
};

namespace {

constexpr std::int64_t kPanel = 16;      // output columns per packed panel (two AVX2 registers)
constexpr std::int64_t kTileRows = 6;    // rows per register tile: 12 accumulators + 2 weights + 1 broadcast
constexpr std::int64_t kChunkRows = 192; // rows per pass over the panels, so that they stay in L2
constexpr std::int64_t kDepth = 256;     // k per pass: a panel's block is 16 KB, in L1 beside the rows

std::shared_ptr<const PackedWeight> pack(const at::Tensor& weight) {
  auto packed = std::make_shared<PackedWeight>();
  packed->out = weight.size(0);
  packed->in = weight.size(1);
  packed->panels = (packed->out + kPanel - 1) / kPanel;
  packed->data = at::zeros({packed->panels, packed->in, kPanel}, weight.options());
  const float* w = weight.data_ptr<float>();
  const std::int64_t s0 = weight.stride(0), s1 = weight.stride(1);
  float* d = packed->data.data_ptr<float>();
  for (std::int64_t n = 0; n < packed->out; ++n) {
    float* column = d + (n / kPanel) * packed->in * kPanel + n % kPanel;
    for (std::int64_t k = 0; k < packed->in; ++k) column[k * kPanel] = w[n * s0 + k * s1];
  }
  return packed;
}

// The chain in scalar code: y[r, n] = fma(x[r, k], W[n, k], ...) over k in order, + b[n] (or + 0).
template <typename T>
void chain_rows(const T* x, std::int64_t rows, std::int64_t in, const T* w, std::int64_t s0, std::int64_t s1,
                std::int64_t out, const T* bias, T* y) {
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t n = 0; n < out; ++n) {
      T acc = 0;
      for (std::int64_t k = 0; k < in; ++k) acc = std::fma(x[r * in + k], w[n * s0 + k * s1], acc);
      y[r * out + n] = acc + (bias != nullptr ? bias[n] : T(0));
    }
  }
}

#if defined(NMT_HAS_AVX2_KERNEL)
// kRows rows x one panel over k in [begin, end): 2 x kRows accumulators of 8 columns, one fma per
// k each. The first block starts the chains at 0, later ones continue them from y (a float
// stored and loaded back is the same float: the chain is unchanged); the last adds the bias.
template <int kRows>
NMT_AVX2_INLINE void tile_avx2(const float* x, std::int64_t in, std::int64_t begin, std::int64_t end,
                               const float* panel, const float* bias16, std::int64_t columns, float* y,
                               std::int64_t out) {
  const bool first = begin == 0, last = end == in;
  __m256 low[kRows], high[kRows];
#pragma GCC unroll 8
  for (int i = 0; i < kRows; ++i) {
    if (first) {
      low[i] = high[i] = _mm256_setzero_ps();
    } else if (columns == kPanel) {
      low[i] = _mm256_loadu_ps(y + i * out);
      high[i] = _mm256_loadu_ps(y + i * out + 8);
    } else {
      alignas(32) float row[kPanel] = {};
      std::memcpy(row, y + i * out, sizeof(float) * static_cast<std::size_t>(columns));
      low[i] = _mm256_load_ps(row);
      high[i] = _mm256_load_ps(row + 8);
    }
  }
  for (std::int64_t k = begin; k < end; ++k) {
    const __m256 w0 = _mm256_load_ps(panel + kPanel * k), w1 = _mm256_load_ps(panel + kPanel * k + 8);
#pragma GCC unroll 8
    for (int i = 0; i < kRows; ++i) {
      const __m256 xi = _mm256_broadcast_ss(x + i * in + k);
      low[i] = _mm256_fmadd_ps(xi, w0, low[i]);
      high[i] = _mm256_fmadd_ps(xi, w1, high[i]);
    }
  }
  const __m256 b0 = _mm256_loadu_ps(bias16), b1 = _mm256_loadu_ps(bias16 + 8);
#pragma GCC unroll 8
  for (int i = 0; i < kRows; ++i) {
    const __m256 y0 = last ? _mm256_add_ps(low[i], b0) : low[i], y1 = last ? _mm256_add_ps(high[i], b1) : high[i];
    if (columns == kPanel) {
      _mm256_storeu_ps(y + i * out, y0);
      _mm256_storeu_ps(y + i * out + 8, y1);
    } else {
      alignas(32) float row[kPanel];
      _mm256_store_ps(row, y0);
      _mm256_store_ps(row + 8, y1);
      std::memcpy(y + i * out, row, sizeof(float) * static_cast<std::size_t>(columns));
    }
  }
}

// Panels [first, last) for all rows: a chunk of rows at a time, and within a panel a block of k
// at a time, so that a panel's block (256 x 16 floats) stays in L1 however wide the input (the
// readout's 1024 made whole panels of 64 KB stream from L2 for every tile), while the chunk's
// 192 x 16 outputs, continued from block to block, stay in L2.
NMT_AVX2 void panels_avx2(const float* x, std::int64_t rows, const PackedWeight& w, const float* bias,
                          std::int64_t first, std::int64_t last, float* y) {
  const std::int64_t in = w.in, out = w.out;
  const float* panels = w.data.data_ptr<float>();
  for (std::int64_t chunk = 0; chunk < rows; chunk += kChunkRows) {
    const std::int64_t chunk_end = std::min(rows, chunk + kChunkRows);
    for (std::int64_t p = first; p < last; ++p) {
      const float* panel = panels + p * in * kPanel;
      const std::int64_t column = p * kPanel, columns = std::min(kPanel, out - column);
      alignas(32) float bias16[kPanel] = {};
      if (bias != nullptr) std::memcpy(bias16, bias + column, sizeof(float) * static_cast<std::size_t>(columns));
      for (std::int64_t begin = 0; begin < in; begin += kDepth) {
        const std::int64_t end = std::min(in, begin + kDepth);
        std::int64_t r = chunk;
        for (; r + kTileRows <= chunk_end; r += kTileRows) {
          tile_avx2<kTileRows>(x + r * in, in, begin, end, panel, bias16, columns, y + r * out + column, out);
        }
        const float* xr = x + r * in;
        float* yr = y + r * out + column;
        switch (chunk_end - r) {
          case 5: tile_avx2<5>(xr, in, begin, end, panel, bias16, columns, yr, out); break;
          case 4: tile_avx2<4>(xr, in, begin, end, panel, bias16, columns, yr, out); break;
          case 3: tile_avx2<3>(xr, in, begin, end, panel, bias16, columns, yr, out); break;
          case 2: tile_avx2<2>(xr, in, begin, end, panel, bias16, columns, yr, out); break;
          case 1: tile_avx2<1>(xr, in, begin, end, panel, bias16, columns, yr, out); break;
          default: break;
        }
      }
    }
  }
}

// The same chains with AVX-512: a panel's 16 columns are one register, and a tile is kRows rows
// x kPanels neighbouring panels (kRows x kPanels accumulators), so that every weight load and
// every broadcast of x feeds more fmas than AVX2's tile of 6 rows x 2 registers can. Each output is still
// fma(x[r, k], W[n, k], ...) over k in order, continued through y between depth blocks, plus the
// bias (or + 0) at the end: the same bits as tile_avx2 and chain_rows. Columns past `out` in the
// last panel are masked off (the packed weights are zero there).
constexpr std::int64_t kTileRows512 = 12;  // 12 x 2 accumulators + 2 weights + 1 broadcast of 32 registers
constexpr std::int64_t kDepth512 = 128;    // two panels' block is 16 KB, in L1 beside the tile's rows

template <int kRows, int kPanels>
NMT_AVX512_INLINE void tile_avx512(const float* x, std::int64_t in, std::int64_t begin, std::int64_t end,
                                   const float* panel, const float* bias, const __mmask16* masks, float* y,
                                   std::int64_t out) {
  const bool first = begin == 0, last = end == in;
  __m512 acc[kRows][kPanels];
#pragma GCC unroll 12
  for (int i = 0; i < kRows; ++i) {
#pragma GCC unroll 2
    for (int j = 0; j < kPanels; ++j) {
      acc[i][j] = first ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(masks[j], y + i * out + j * kPanel);
    }
  }
  const std::int64_t panel_size = in * kPanel;
  for (std::int64_t k = begin; k < end; ++k) {
    __m512 w[kPanels];
#pragma GCC unroll 2
    for (int j = 0; j < kPanels; ++j) w[j] = _mm512_load_ps(panel + j * panel_size + kPanel * k);
#pragma GCC unroll 12
    for (int i = 0; i < kRows; ++i) {
      const __m512 xi = _mm512_set1_ps(x[i * in + k]);
#pragma GCC unroll 2
      for (int j = 0; j < kPanels; ++j) acc[i][j] = _mm512_fmadd_ps(xi, w[j], acc[i][j]);
    }
  }
#pragma GCC unroll 12
  for (int i = 0; i < kRows; ++i) {
#pragma GCC unroll 2
    for (int j = 0; j < kPanels; ++j) {
      const __m512 v = last ? _mm512_add_ps(acc[i][j], _mm512_loadu_ps(bias + j * kPanel)) : acc[i][j];
      _mm512_mask_storeu_ps(y + i * out + j * kPanel, masks[j], v);
    }
  }
}

// A tile of fewer than kTileRows512 rows. clang calls it rather than inlining it: with all 22
// remainder tiles inlined into panels_avx512, clang 14 with AddressSanitizer compiled this file for
// more than 12 minutes (docs/fuzzing.md). GCC inlines it as before (its code, and so its speed, is
// unchanged); the arithmetic is the same either way.
#if defined(__clang__)
#define NMT_AVX512_REMAINDER __attribute__((target("avx512f,avx2,fma"), noinline))
#else
#define NMT_AVX512_REMAINDER NMT_AVX512_INLINE
#endif
template <int kRows, int kPanels>
NMT_AVX512_REMAINDER void remainder_tile_avx512(
    const float* x, std::int64_t in, std::int64_t begin, std::int64_t end, const float* panel, const float* bias,
    const __mmask16* masks, float* y, std::int64_t out) {
  tile_avx512<kRows, kPanels>(x, in, begin, end, panel, bias, masks, y, out);
}

// Rows [r, chunk_end) of one tile column: full tiles of kTileRows512, then the remainder.
template <int kPanels>
NMT_AVX512_INLINE void tile_column_avx512(const float* x, std::int64_t in, std::int64_t r, std::int64_t chunk_end,
                                          std::int64_t begin, std::int64_t end, const float* panel,
                                          const float* bias, const __mmask16* masks, float* y, std::int64_t out) {
  for (; r + kTileRows512 <= chunk_end; r += kTileRows512) {
    tile_avx512<kTileRows512, kPanels>(x + r * in, in, begin, end, panel, bias, masks, y + r * out, out);
  }
  const float* xr = x + r * in;
  float* yr = y + r * out;
  switch (chunk_end - r) {
    case 11: remainder_tile_avx512<11, kPanels>(xr, in, begin, end, panel, bias, masks, yr, out); break;
    case 10: remainder_tile_avx512<10, kPanels>(xr, in, begin, end, panel, bias, masks, yr, out); break;
    case 9: remainder_tile_avx512<9, kPanels>(xr, in, begin, end, panel, bias, masks, yr, out); break;
    case 8: remainder_tile_avx512<8, kPanels>(xr, in, begin, end, panel, bias, masks, yr, out); break;
    case 7: remainder_tile_avx512<7, kPanels>(xr, in, begin, end, panel, bias, masks, yr, out); break;
    case 6: remainder_tile_avx512<6, kPanels>(xr, in, begin, end, panel, bias, masks, yr, out); break;
    case 5: remainder_tile_avx512<5, kPanels>(xr, in, begin, end, panel, bias, masks, yr, out); break;
    case 4: remainder_tile_avx512<4, kPanels>(xr, in, begin, end, panel, bias, masks, yr, out); break;
    case 3: remainder_tile_avx512<3, kPanels>(xr, in, begin, end, panel, bias, masks, yr, out); break;
    case 2: remainder_tile_avx512<2, kPanels>(xr, in, begin, end, panel, bias, masks, yr, out); break;
    case 1: remainder_tile_avx512<1, kPanels>(xr, in, begin, end, panel, bias, masks, yr, out); break;
    default: break;
  }
}

// panels_avx2's loops with two panels per tile (a lone last panel takes a tile of its own): the
// depth blocks run inside each pair, so a chunk's 192 x 32 outputs (24 KB) stay in L2 between
// blocks; looping the blocks outside the panels sent the whole [rows, out] output through memory
// once per block (the output layer: 6.4 MB per 400 rows, twice).
NMT_AVX512 void panels_avx512(const float* x, std::int64_t rows, const PackedWeight& w, const float* bias,
                              std::int64_t first, std::int64_t last, float* y) {
  const std::int64_t in = w.in, out = w.out;
  const float* panels = w.data.data_ptr<float>();
  for (std::int64_t chunk = 0; chunk < rows; chunk += kChunkRows) {
    const std::int64_t chunk_end = std::min(rows, chunk + kChunkRows);
    for (std::int64_t p = first; p < last; p += 2) {
      const std::int64_t pair = std::min<std::int64_t>(2, last - p), column = p * kPanel;
      alignas(64) float bias32[2 * kPanel] = {};
      __mmask16 masks[2] = {0, 0};
      for (std::int64_t j = 0; j < pair; ++j) {
        const std::int64_t columns = std::min(kPanel, out - column - j * kPanel);
        masks[j] = static_cast<__mmask16>((1u << columns) - 1u);
        if (bias != nullptr) {
          std::memcpy(bias32 + j * kPanel, bias + column + j * kPanel,
                      sizeof(float) * static_cast<std::size_t>(columns));
        }
      }
      const float* panel = panels + p * in * kPanel;
      float* yc = y + column;
      for (std::int64_t begin = 0; begin < in; begin += kDepth512) {
        const std::int64_t end = std::min(in, begin + kDepth512);
        if (pair == 2) {
          tile_column_avx512<2>(x, in, chunk, chunk_end, begin, end, panel, bias32, masks, yc, out);
        } else {
          tile_column_avx512<1>(x, in, chunk, chunk_end, begin, end, panel, bias32, masks, yc, out);
        }
      }
    }
  }
}

#endif

// Whether float weights are packed for the AVX2 kernel on this CPU.
bool packs(const at::Tensor& weight) {
#if defined(NMT_HAS_AVX2_KERNEL)
  return weight.scalar_type() == at::kFloat && weight.is_cpu() && cpu_features().avx2_fma;
#else
  (void)weight;
  return false;
#endif
}

// y [rows, out] = x [rows, in] W^T + b, all contiguous but W (any strides). `packed`: W packed,
// when packs(W) (packed here when null).
template <typename T>
void row_invariant_product(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias,
                           const PackedWeight* packed, at::Tensor& y) {
  const std::int64_t rows = x.size(0), in = x.size(1), out = weight.size(0);
  const T* b = bias.defined() ? bias.data_ptr<T>() : nullptr;
#if defined(NMT_HAS_AVX2_KERNEL)
  if constexpr (std::is_same_v<T, float>) {
    if (packs(weight)) {
      std::shared_ptr<const PackedWeight> packed_here;
      if (packed == nullptr) {
        packed_here = pack(weight);
        packed = packed_here.get();
      }
      const float* xp = x.data_ptr<float>();
      float* yp = y.data_ptr<float>();
      // Threads (if any) take panels: every output is still one chain, whoever computes it.
      const bool avx512 = cpu_features().avx512f;
      at::parallel_for(0, packed->panels, /*grain_size=*/16, [&](std::int64_t first, std::int64_t last) {
        if (avx512) {
          panels_avx512(xp, rows, *packed, b, first, last, yp);
        } else {
          panels_avx2(xp, rows, *packed, b, first, last, yp);
        }
      });
      return;
    }
  }
#endif
  const T* w = weight.data_ptr<T>();
  const T* xp = x.data_ptr<T>();
  T* yp = y.data_ptr<T>();
  at::parallel_for(0, rows, /*grain_size=*/8, [&](std::int64_t first, std::int64_t last) {
    chain_rows<T>(xp + first * in, last - first, in, w, weight.stride(0), weight.stride(1), out, b, yp + first * out);
  });
}

at::Tensor chain_linear(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& bias, bool reference,
                        const PackedWeight* packed = nullptr) {
  TORCH_CHECK(weight.dim() == 2 && input.size(-1) == weight.size(1) &&
                  (!bias.defined() || (bias.dim() == 1 && bias.size(0) == weight.size(0))),
              "stable_linear: shapes do not match: input ", input.sizes(), ", weight ", weight.sizes(), ", bias ",
              bias.defined() ? bias.sizes() : at::IntArrayRef{});
  const at::Tensor x = input.reshape({-1, input.size(-1)}).contiguous();
  const at::Tensor b = bias.defined() ? bias.contiguous() : bias;
  at::Tensor y = at::empty({x.size(0), weight.size(0)}, x.options());
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "stable_linear", [&] {
    if (reference) {
      chain_rows<scalar_t>(x.data_ptr<scalar_t>(), x.size(0), x.size(1), weight.data_ptr<scalar_t>(), weight.stride(0),
                           weight.stride(1), weight.size(0), b.defined() ? b.data_ptr<scalar_t>() : nullptr,
                           y.data_ptr<scalar_t>());
    } else {
      row_invariant_product<scalar_t>(x, weight, b, packed, y);
    }
  });
  std::vector<std::int64_t> shape = input.sizes().vec();
  shape.back() = weight.size(0);
  return y.view(shape);
}

}  // namespace

at::Tensor stable_linear(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& bias) {
  if (!inference_kernels_apply(input, weight) || (bias.defined() && !inference_kernels_apply(input, bias))) {
    return at::linear(input, weight, bias);
  }
  return chain_linear(input, weight, bias, /*reference=*/false);
}

const EnumNames<Precision>& enum_names(Precision) {
  static const EnumNames<Precision> names("precision", {{Precision::float32, "float32"}, {Precision::int8, "int8"}});
  return names;
}

at::Tensor snapshot(const at::Tensor& tensor, const c10::Device& device) {
  return tensor.detach().to(device, tensor.scalar_type(), /*non_blocking=*/false, /*copy=*/true);
}

PackedLinear::PackedLinear(const at::Tensor& weight, const at::Tensor& bias, const c10::Device& device,
                           Precision precision) {
  TORCH_CHECK(weight.dim() == 2 && (!bias.defined() || (bias.dim() == 1 && bias.size(0) == weight.size(0))),
              "PackedLinear: weight must be [out, in] and bias [out]");
  const bool quantize = precision == Precision::int8 && device.is_cpu() && weight.scalar_type() == at::kFloat;
  if (quantize) {  // the int8 weight is all it keeps: the float copy would be ~4x its bytes again
    int8_ = quantize_for_int8(weight.detach().to(at::kCPU), bias.defined() ? bias.detach().to(at::kCPU) : bias);
    return;
  }
  weight_ = snapshot(weight, device).contiguous();
  if (bias.defined()) bias_ = snapshot(bias, device).contiguous();
  if (packs(weight_)) packed_ = pack(weight_);
}

at::Tensor PackedLinear::operator()(const at::Tensor& input) const {
  if (int8_) {
    TORCH_CHECK(input.scalar_type() == at::kFloat && input.is_cpu() &&
                    !(at::GradMode::is_enabled() && input.requires_grad()),
                "an int8 product takes float input on the CPU without autograd (it is for decoding), got ",
                input.scalar_type(), " on ", input.device(), input.requires_grad() ? " requiring a gradient" : "");
    return int8_product(input, *int8_);
  }
  if (!inference_kernels_apply(input, weight_)) return at::linear(input, weight_, bias_);
  return chain_linear(input, weight_, bias_, /*reference=*/false, packed_.get());
}

PackedLinear PackedLinear::rows(const at::Tensor& ids) const {
  TORCH_CHECK(defined() && ids.dim() == 1 && ids.scalar_type() == at::kLong,
              "PackedLinear::rows: ids must be [K] int64 of a defined product");
  if (int8_) {
    PackedLinear selected;
    selected.int8_ = select_int8_rows(*int8_, ids);
    return selected;
  }
  const at::Tensor on_device = ids.to(weight_.device());
  return PackedLinear(weight_.index_select(0, on_device), bias_.defined() ? bias_.index_select(0, on_device) : bias_,
                      weight_.device());
}

at::Tensor fma_chain_linear_reference(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& bias) {
  TORCH_CHECK(input.dim() == 2 && input.is_cpu() && weight.is_cpu(), "fma_chain_linear_reference: CPU [rows, in] only");
  return chain_linear(input, weight, bias, /*reference=*/true);
}

}  // namespace nmt
