// bfloat16 autocast on CUDA for the forward pass (train.amp; no loss scaling needed with bfloat16).
#pragma once

namespace nmt {

class AutocastGuard {
 public:
  /// Turns CUDA autocast to bfloat16 on while it lives (nothing when `enabled` is false).
  explicit AutocastGuard(bool enabled);
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  bool enabled_;
};

}  // namespace nmt
