// Which kernel runs: the CPU's vector features (checked once) and whether the inference kernels
// apply to a set of tensors. Internal to nmt/kernels (the face is kernels.h).
#pragma once

#include <ATen/core/Tensor.h>

namespace nmt {

struct CpuFeatures {
  bool avx2_fma = false;  // AVX2 and FMA (Haswell, Zen and later)
  bool avx512f = false;   // AVX-512 Foundation (Skylake-X Xeons and later)
  bool avx512bw = false;  // AVX-512 byte and word instructions (the int8 kernels' vpmaddubsw on 512 bits)
  bool avx512vnni = false;  // AVX-512 VNNI's vpdpbusd (Cascade Lake, Ice Lake, Zen 4 and later)
};

/// This CPU's features, detected once (all false off x86), capped by the environment variable
/// NMT_CPU_CAPABILITY (avx512, avx512bw, avx2 or portable; unset or empty: no cap). Throws ConfigError on
/// another value.
const CpuFeatures& cpu_features();

/// `detected` capped by `ceiling` (NMT_CPU_CAPABILITY's value; null or empty: unchanged).
CpuFeatures capped_cpu_features(CpuFeatures detected, const char* ceiling);

/// Undefined, or on the CPU with this scalar type.
inline bool on_cpu_as(const at::Tensor& t, at::ScalarType type) {
  return !t.defined() || (t.device().is_cpu() && t.scalar_type() == type);
}

}  // namespace nmt
