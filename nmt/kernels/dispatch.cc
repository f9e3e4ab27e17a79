#include "nmt/kernels/dispatch.h"

#include <ATen/core/grad_mode.h>

#include <cstdlib>
#include <string>

#include "nmt/core/decimal_number.h"
#include "nmt/core/error.h"

#include "nmt/kernels/kernels.h"

namespace nmt {

CpuFeatures capped_cpu_features(CpuFeatures detected, const char* ceiling) {
  // A ceiling on what the CPU has (never more), for A/B measurements and for testing every
  // kernel build on one machine; like PyTorch's ATEN_CPU_CAPABILITY.
  // avx512bw: AVX-512 without VNNI, for the int8 kernels (the float ones need only AVX-512F).
  const std::string name = ceiling != nullptr ? ceiling : "";
  if (name == "avx512bw") {
    detected.avx512vnni = false;
  } else if (name == "avx2") {
    detected.avx512f = detected.avx512bw = detected.avx512vnni = false;
  } else if (name == "portable") {
    detected = CpuFeatures{};
  } else if (!name.empty() && name != "avx512") {
    throw ConfigError("NMT_CPU_CAPABILITY: " + quoted_excerpt(name) + " is not one of avx512, avx512bw, avx2, portable");
  }
  return detected;
}

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = [] {
    CpuFeatures f;
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init();
    f.avx2_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    f.avx512f = __builtin_cpu_supports("avx512f");
    f.avx512bw = f.avx512f && __builtin_cpu_supports("avx512bw");
    f.avx512vnni = f.avx512bw && __builtin_cpu_supports("avx512vnni");
#endif
    return capped_cpu_features(f, std::getenv("NMT_CPU_CAPABILITY"));
  }();
  return features;
}

std::string kernel_capability() {
  const CpuFeatures& f = cpu_features();
  return f.avx512f ? "avx512" : f.avx2_fma ? "avx2" : "portable";
}

bool inference_kernels_apply(const at::Tensor& a, const at::Tensor& b) {
  const auto type = a.scalar_type();
  if (type != at::kFloat && type != at::kDouble) return false;
  if (!on_cpu_as(a, type) || !on_cpu_as(b, type)) return false;
  return !at::GradMode::is_enabled() || !(a.requires_grad() || (b.defined() && b.requires_grad()));
}

}  // namespace nmt
