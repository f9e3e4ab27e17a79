#include "nmt/train/autocast.h"

#include <ATen/autocast_mode.h>
#include <torch/version.h>

namespace nmt {

// LibTorch 2.4 names the device in the autocast calls; 1.13 has the GPU-only forms.
AutocastGuard::AutocastGuard(bool enabled) : enabled_(enabled) {
  if (!enabled_) return;
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
  at::autocast::set_autocast_dtype(at::kCUDA, at::kBFloat16);
  at::autocast::set_autocast_enabled(at::kCUDA, true);
#else
  at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
  at::autocast::set_enabled(true);
#endif
}

AutocastGuard::~AutocastGuard() {
  if (!enabled_) return;
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
  at::autocast::set_autocast_enabled(at::kCUDA, false);
#else
  at::autocast::set_enabled(false);
#endif
  at::autocast::clear_cache();
}

}  // namespace nmt
