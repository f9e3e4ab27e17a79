// int8 products (kernels.h, "int8 products"; the arithmetic in int8_linear.h): quantizing weights
// and rows, the portable loops, the choice of kernel, and the scalar reference the tests hold every
// kernel to.
#include "nmt/kernels/int8_linear.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>

#include "nmt/core/error.h"
#include "nmt/kernels/dispatch.h"
#include "nmt/kernels/kernels.h"

namespace nmt {
namespace int8 {
namespace {

// A row's largest magnitude and whether all its values are finite.
struct RowRange {
  float max_abs = 0.0f;
  bool finite = true;
};

RowRange range_of(const float* x, std::int64_t n) {
  RowRange range;
  for (std::int64_t k = 0; k < n; ++k) {
    const float a = std::fabs(x[k]);
    range.finite = range.finite && a <= FLT_MAX;  // false for NaN and the infinities
    range.max_abs = a > range.max_abs ? a : range.max_abs;
  }
  return range;
}

// q[k] = quantize_value(x[k], 127 / max). Returns the scale max / 127, or 0 for a zero (or
// negligible) row.
float quantize(const float* x, std::int64_t n, float max_abs, std::int8_t* q) {
  if (max_abs < kSmallestMax) {
    std::fill(q, q + n, std::int8_t{0});
    return 0.0f;
  }
  const float inverse = 127.0f / max_abs;
  for (std::int64_t k = 0; k < n; ++k) q[k] = quantize_value(x[k], inverse);
  return max_abs / 127.0f;
}

// A weight of `out` rows of `in` inputs, every byte, scale, bias and correction zero.
Int8Weight zero_weight(std::int64_t out, std::int64_t in) {
  Int8Weight w;
  w.out = out;
  w.in = in;
  w.groups = (in + kGroup - 1) / kGroup;
  w.panels = (out + kPanel - 1) / kPanel;
  const auto columns = static_cast<std::size_t>(w.panels * kPanel);
  w.data = at::zeros({w.panels, w.groups, kPanel, kGroup}, at::kChar);
  w.scales.assign(columns, 0.0f);
  w.bias.assign(columns, 0.0f);
  w.shift.assign(columns, 0);
  return w;
}

// Where column n's bytes start in the packed data: column c of panel p at ((p * groups) * 16 + c)
// * 4, its groups following 64 bytes apart.
std::int64_t column_start(std::int64_t n, std::int64_t groups) {
  return ((n / kPanel) * groups * kPanel + n % kPanel) * kGroup;
}

}  // namespace

Int8Weight quantize_weight(const float* weight, std::int64_t out, std::int64_t in, const float* bias) {
  if (in > kMaxDepth) {
    throw ConfigError("int8 products take at most " + std::to_string(kMaxDepth) + " inputs, and this layer has " +
                      std::to_string(in) + " (use --precision float32)");
  }
  Int8Weight w = zero_weight(out, in);
  std::int8_t* data = w.data.data_ptr<std::int8_t>();
  std::vector<std::int8_t> row(static_cast<std::size_t>(in));
  for (std::int64_t n = 0; n < out; ++n) {
    const float* wn = weight + n * in;
    const RowRange range = range_of(wn, in);
    if (!range.finite) throw ConfigError("int8 products: the weights hold NaN or an infinity (row " + std::to_string(n) + ")");
    w.scales[n] = quantize(wn, in, range.max_abs, row.data());
    if (bias != nullptr) w.bias[n] = bias[n];
    std::int32_t sum = 0;
    // Four bytes per group, 64 bytes apart (no division per value: with one, loading the reference
    // model's int8 form took about 0.14 s longer than its float32 form).
    std::int8_t* column = data + column_start(n, w.groups);
    for (std::int64_t k = 0; k < in; ++k) sum += row[k];
    for (std::int64_t g = 0, k = 0; g < w.groups; ++g, column += kPanel * kGroup) {
      for (std::int64_t i = 0; i < kGroup && k < in; ++i, ++k) column[i] = row[k];
    }
    w.shift[n] = 128 * sum;
  }
  return w;
}

Int8Weight select_rows(const Int8Weight& w, const std::int64_t* ids, std::int64_t count) {
  Int8Weight s = zero_weight(count, w.in);
  const std::int8_t* from = w.data.data_ptr<std::int8_t>();
  std::int8_t* to = s.data.data_ptr<std::int8_t>();
  for (std::int64_t n = 0; n < count; ++n) {
    const std::int64_t m = ids[n];
    if (m < 0 || m >= w.out) {
      throw ConfigError("int8 rows: row " + std::to_string(m) + " is outside the weight's " + std::to_string(w.out) +
                        " rows");
    }
    const std::int8_t* source = from + column_start(m, w.groups);
    std::int8_t* target = to + column_start(n, w.groups);
    for (std::int64_t g = 0; g < w.groups; ++g) {
      std::memcpy(target + g * kPanel * kGroup, source + g * kPanel * kGroup, kGroup);
    }
    s.scales[n] = w.scales[m];
    s.bias[n] = w.bias[m];
    s.shift[n] = w.shift[m];
  }
  return s;
}

void quantize_rows(const float* x, std::int64_t rows, std::int64_t in, bool with_unsigned, Int8Rows& q) {
  q.rows = rows;
  q.stride = (in + kGroup - 1) / kGroup * kGroup;
  // Every byte and value below is written: `q` may hold an earlier call's (its buffers are reused).
  q.values.resize(static_cast<std::size_t>(rows * q.stride));
  q.scales.resize(static_cast<std::size_t>(rows));
  q.invalid.resize(static_cast<std::size_t>(rows));
  for (std::int64_t r = 0; r < rows; ++r) {
    std::int8_t* row = q.values.data() + r * q.stride;
    const RowRange range = range_of(x + r * in, in);
    q.invalid[r] = range.finite ? 0 : 1;
    q.scales[r] = range.finite ? quantize(x + r * in, in, range.max_abs, row) : 0.0f;
    std::fill(row + (range.finite ? in : 0), row + q.stride, std::int8_t{0});
  }
  if (with_unsigned) {  // qx + 128 as a byte: the sign bit flipped
    q.unsigned_values.resize(q.values.size());
    for (std::size_t i = 0; i < q.values.size(); ++i) {
      q.unsigned_values[i] = static_cast<std::uint8_t>(static_cast<std::uint8_t>(q.values[i]) ^ 0x80u);
    }
  }
}

float epilogue(std::int32_t acc, float row_scale, bool invalid_row, float weight_scale, float bias) {
  if (invalid_row) return std::numeric_limits<float>::quiet_NaN();
  const float scale = row_scale * weight_scale;
  const float product = static_cast<float>(acc) * scale;
  return product + bias;
}

void multiply_portable(const Int8Rows& x, const Int8Weight& w, std::int64_t first, std::int64_t last, float* y) {
  const std::int8_t* data = w.data.data_ptr<std::int8_t>();
  for (std::int64_t r = 0; r < x.rows; ++r) {
    const std::int8_t* q = x.values.data() + r * x.stride;
    for (std::int64_t p = first; p < last; ++p) {
      const std::int8_t* panel = data + p * w.groups * kPanel * kGroup;
      for (std::int64_t c = 0; c < kPanel && p * kPanel + c < w.out; ++c) {
        std::int32_t acc = 0;
        for (std::int64_t g = 0; g < w.groups; ++g) {
          for (std::int64_t i = 0; i < kGroup; ++i) acc += q[g * kGroup + i] * panel[(g * kPanel + c) * kGroup + i];
        }
        const std::int64_t n = p * kPanel + c;
        y[r * w.out + n] = epilogue(acc, x.scales[r], x.invalid[r] != 0, w.scales[n], w.bias[n]);
      }
    }
  }
}

namespace {

Kernel best_kernel() {
  const CpuFeatures& f = cpu_features();
  if (f.avx512vnni) return Kernel::vnni;
  if (f.avx512bw) return Kernel::avx512bw;
  if (f.avx2_fma) return Kernel::avx2;
  return Kernel::portable;
}

const char* name_of(Kernel kernel) {
  switch (kernel) {
    case Kernel::vnni: return "vnni";
    case Kernel::avx512bw: return "avx512bw";
    case Kernel::avx2: return "avx2";
    case Kernel::portable: break;
  }
  return "portable";
}

// y [rows, out] = the int8 product of x [rows, in] (float, contiguous) with the kernel, kChunkRows
// rows at a time (a row's quantization and sums are its own: the chunks change no bit).
void run(const float* x, std::int64_t rows, const Int8Weight& w, Kernel kernel, float* y) {
  // Threads (if any) take panels, and each quantizes the rows it multiplies (a pass over rows x in
  // values against the product's rows x in x out / threads): every output is the same exact sum,
  // whoever computes it, and a chunk costs no join.
  at::parallel_for(0, w.panels, /*grain_size=*/16, [&](std::int64_t first, std::int64_t last) {
    // One buffer per thread, reused: fresh vectors at every product (several a decoder step) cost
    // each worker's allocator arena tens of MiB of peak memory.
    thread_local Int8Rows q;
    for (std::int64_t chunk = 0; chunk < rows; chunk += kChunkRows) {
      const std::int64_t count = std::min(kChunkRows, rows - chunk);
      if (kernel == Kernel::portable) {
        quantize_rows(x + chunk * w.in, count, w.in, /*with_unsigned=*/false, q);
      } else {
        quantize_rows_avx2(x + chunk * w.in, count, w.in, kernel == Kernel::vnni, q);
      }
      float* const y_chunk = y + chunk * w.out;
      switch (kernel) {
        case Kernel::vnni: multiply_vnni(q, w, first, last, y_chunk); break;
        case Kernel::avx512bw: multiply_avx512bw(q, w, first, last, y_chunk); break;
        case Kernel::avx2: multiply_avx2(q, w, first, last, y_chunk); break;
        case Kernel::portable: multiply_portable(q, w, first, last, y_chunk); break;
      }
    }
  });
}

at::Tensor product(const at::Tensor& input, const Int8Weight& w, Kernel kernel) {
  TORCH_CHECK(input.size(-1) == w.in, "int8 product: input ", input.sizes(), " does not match ", w.in, " inputs");
  const at::Tensor x = input.reshape({-1, w.in}).contiguous();
  at::Tensor y = at::empty({x.size(0), w.out}, x.options());
  run(x.data_ptr<float>(), x.size(0), w, kernel, y.data_ptr<float>());
  std::vector<std::int64_t> shape = input.sizes().vec();
  shape.back() = w.out;
  return y.view(shape);
}

std::shared_ptr<const Int8Weight> quantized(const at::Tensor& weight, const at::Tensor& bias) {
  TORCH_CHECK(weight.dim() == 2 && weight.scalar_type() == at::kFloat && weight.is_cpu(),
              "int8 products: the weight must be [out, in] float on the CPU");
  const at::Tensor w = weight.contiguous();
  const at::Tensor b = bias.defined() ? bias.to(at::kFloat).contiguous() : bias;
  return std::make_shared<const Int8Weight>(
      quantize_weight(w.data_ptr<float>(), w.size(0), w.size(1), b.defined() ? b.data_ptr<float>() : nullptr));
}

}  // namespace
}  // namespace int8

std::shared_ptr<const int8::Int8Weight> quantize_for_int8(const at::Tensor& weight, const at::Tensor& bias) {
  return int8::quantized(weight, bias);
}

std::shared_ptr<const int8::Int8Weight> select_int8_rows(const int8::Int8Weight& weight, const at::Tensor& ids) {
  TORCH_CHECK(ids.dim() == 1 && ids.scalar_type() == at::kLong, "int8 rows: ids must be [K] int64");
  const at::Tensor list = ids.to(at::kCPU).contiguous();
  return std::make_shared<const int8::Int8Weight>(
      int8::select_rows(weight, list.data_ptr<std::int64_t>(), list.size(0)));
}

at::Tensor int8_product(const at::Tensor& input, const int8::Int8Weight& weight) {
  return int8::product(input, weight, int8::best_kernel());
}

std::vector<std::string> int8_kernels() {
  const CpuFeatures& f = cpu_features();
  // Reserved first: growing a vector made from one name set off GCC 14's -Warray-bounds (a false
  // positive inside basic_string's constructor) at -O3.
  std::vector<std::string> names;
  names.reserve(4);
  names.emplace_back("portable");
  if (f.avx2_fma) names.emplace_back("avx2");
  if (f.avx512bw) names.emplace_back("avx512bw");
  if (f.avx512vnni) names.emplace_back("vnni");
  return names;
}

std::string int8_kernel() { return int8::name_of(int8::best_kernel()); }

at::Tensor int8_linear(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& bias,
                       const std::string& kernel) {
  const std::vector<std::string> have = int8_kernels();
  TORCH_CHECK(std::find(have.begin(), have.end(), kernel) != have.end(), "int8_linear: no kernel '", kernel,
              "' on this CPU");
  const int8::Kernel chosen = kernel == "vnni"       ? int8::Kernel::vnni
                              : kernel == "avx512bw" ? int8::Kernel::avx512bw
                              : kernel == "avx2"     ? int8::Kernel::avx2
                                                     : int8::Kernel::portable;
  TORCH_CHECK(input.scalar_type() == at::kFloat && input.is_cpu(), "int8_linear: the input must be float on the CPU");
  return int8::product(input, *int8::quantized(weight, bias), chosen);
}

at::Tensor int8_linear_reference(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& bias) {
  TORCH_CHECK(input.dim() == 2 && weight.dim() == 2 && input.size(1) == weight.size(1) &&
                  input.scalar_type() == at::kFloat && weight.scalar_type() == at::kFloat,
              "int8_linear_reference: float input [rows, in] and weight [out, in]");
  const at::Tensor x = input.contiguous(), w = weight.contiguous();
  const std::int64_t rows = x.size(0), in = x.size(1), out = w.size(0);
  // Straight from the definitions in int8_linear.h, without the packed layout.
  int8::Int8Rows qx, qw;
  int8::quantize_rows(x.data_ptr<float>(), rows, in, /*with_unsigned=*/false, qx);
  int8::quantize_rows(w.data_ptr<float>(), out, in, /*with_unsigned=*/false, qw);
  at::Tensor y = at::empty({rows, out}, x.options());
  float* yp = y.data_ptr<float>();
  const at::Tensor b = bias.defined() ? bias.to(at::kFloat).contiguous() : bias;
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t n = 0; n < out; ++n) {
      std::int64_t acc = 0;  // wide, to show that int32 never overflows
      for (std::int64_t k = 0; k < in; ++k) acc += qx.values[r * qx.stride + k] * qw.values[n * qw.stride + k];
      TORCH_CHECK(acc >= std::numeric_limits<std::int32_t>::min() && acc <= std::numeric_limits<std::int32_t>::max(),
                  "int8_linear_reference: the sum overflowed int32");
      yp[r * out + n] = int8::epilogue(static_cast<std::int32_t>(acc), qx.scales[r], qx.invalid[r] != 0, qw.scales[n],
                                       b.defined() ? b.data_ptr<float>()[n] : 0.0f);
    }
  }
  return y;
}

}  // namespace nmt
