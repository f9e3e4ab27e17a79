// int8 positions (kernels.h): the per-position tables a decoder step reads, one byte a value and one
// scale a position, quantized as int8_linear.h quantizes a weight row.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "nmt/kernels/dispatch.h"
#include "nmt/kernels/dispatch.h"
#include "nmt/kernels/int8_linear.h"
#include "nmt/kernels/kernels.h"

namespace nmt {

Int8Positions quantize_positions(const at::Tensor& x) {
  TORCH_CHECK(x.dim() == 3 && x.scalar_type() == at::kFloat && x.is_cpu(),
              "quantize_positions: expected float CPU positions [N, S, D], got ", x.sizes(), " ", x.scalar_type());
  const at::Tensor in = x.contiguous();
  const std::int64_t positions = x.size(0) * x.size(1), size = x.size(2);
  Int8Positions out{at::empty(x.sizes(), x.options().dtype(at::kChar)), at::empty({x.size(0), x.size(1)}, x.options())};
  const float* xp = in.data_ptr<float>();
  std::int8_t* vp = out.values.data_ptr<std::int8_t>();
  float* sp = out.scales.data_ptr<float>();
  const bool vector = cpu_features().avx2_fma;  // as the products choose (int8_linear.cc)
  at::parallel_for(0, positions, int8::kChunkRows, [&](std::int64_t begin, std::int64_t end) {
    thread_local int8::Int8Rows q;  // reused, as the products reuse theirs
    for (std::int64_t chunk = begin; chunk < end; chunk += int8::kChunkRows) {
      const std::int64_t count = std::min(int8::kChunkRows, end - chunk);
      // The products' quantization of a row: the same bytes and scales from either loop.
      if (vector) {
        int8::quantize_rows_avx2(xp + chunk * size, count, size, /*with_unsigned=*/false, q);
      } else {
        int8::quantize_rows(xp + chunk * size, count, size, /*with_unsigned=*/false, q);
      }
      for (std::int64_t r = 0; r < count; ++r) {
        std::memcpy(vp + (chunk + r) * size, q.values.data() + r * q.stride, static_cast<std::size_t>(size));
        // A row with NaN or an infinity: NaN scores and contexts, as its float row would give.
        sp[chunk + r] = q.invalid[r] != 0 ? std::numeric_limits<float>::quiet_NaN() : q.scales[r];
      }
    }
  });
  return out;
}

}  // namespace nmt
