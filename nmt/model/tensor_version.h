// A key for caches of values derived from a tensor (a packed weight, a precomputed table): equal
// only while the tensor holds the same values. It names the tensor's storage (held weakly, so that
// no other storage can take its address while the key lives), offset, shape and strides, and its
// version counter, which every in-place change bumps (an optimizer step, a checkpoint load).
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/StorageImpl.h>
#include <c10/util/intrusive_ptr.h>

#include <cstdint>
#include <vector>

namespace nmt {

class TensorVersionKey {
 public:
  TensorVersionKey() = default;
  explicit TensorVersionKey(const at::Tensor& tensor);

  /// The same storage, offset, shape and strides (whatever the version).
  bool same_tensor(const at::Tensor& tensor) const;
  /// same_tensor() and not changed since the key was taken.
  bool matches(const at::Tensor& tensor) const { return same_tensor(tensor) && version_ == version_of(tensor); }
  /// The storage is gone: no tensor can match any more.
  bool expired() const { return storage_.expired(); }

  /// Tensors without a version counter (inference tensors) cannot be keyed: derive from them anew.
  static bool keyable(const at::Tensor& tensor) { return tensor.defined() && !tensor.is_inference(); }

 private:
  static std::uint32_t version_of(const at::Tensor& tensor);

  c10::weak_intrusive_ptr<c10::StorageImpl> storage_{c10::weak_intrusive_ptr<c10::StorageImpl>(
      c10::intrusive_ptr<c10::StorageImpl>())};
  std::int64_t offset_ = 0;
  std::vector<std::int64_t> sizes_, strides_;
  std::uint32_t version_ = 0;
};

}  // namespace nmt
