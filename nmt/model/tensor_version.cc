#include "nmt/model/tensor_version.h"

#include <c10/core/Storage.h>

namespace nmt {

TensorVersionKey::TensorVersionKey(const at::Tensor& tensor)
    : storage_(tensor.storage().getWeakStorageImpl()),
      offset_(tensor.storage_offset()),
      sizes_(tensor.sizes().vec()),
      strides_(tensor.strides().vec()),
      version_(version_of(tensor)) {}

bool TensorVersionKey::same_tensor(const at::Tensor& tensor) const {
  return !storage_.expired() && storage_._unsafe_get_target() == tensor.storage().unsafeGetStorageImpl() &&
         offset_ == tensor.storage_offset() && tensor.sizes() == sizes_ && tensor.strides() == strides_;
}

std::uint32_t TensorVersionKey::version_of(const at::Tensor& tensor) {
  return tensor.unsafeGetTensorImpl()->version_counter().current_version();
}

}  // namespace nmt
