#include "nmt/kernels/dispatch.h"

#include <ATen/core/grad_mode.h>

#include "nmt/kernels/kernels.h"

namespace nmt {

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = [] {
    CpuFeatures f;
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init();
    f.avx2_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    f.avx512f = __builtin_cpu_supports("avx512f");
#endif
    return f;
  }();
  return features;
}

bool inference_kernels_apply(const at::Tensor& a, const at::Tensor& b) {
  const auto type = a.scalar_type();
  if (type != at::kFloat && type != at::kDouble) return false;
  if (!on_cpu_as(a, type) || !on_cpu_as(b, type)) return false;
  return !at::GradMode::is_enabled() || !(a.requires_grad() || (b.defined() && b.requires_grad()));
}

}  // namespace nmt
