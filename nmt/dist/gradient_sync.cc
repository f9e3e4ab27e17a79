#include "nmt/dist/gradient_sync.h"

#include <ATen/core/grad_mode.h>

#include <utility>

namespace nmt {

GradientSync::GradientSync(std::vector<at::Tensor> parameters, std::int64_t bucket_bytes) {
  std::int64_t bytes = 0;
  for (auto it = parameters.rbegin(); it != parameters.rend(); ++it) {
    const at::Tensor& p = *it;
    const bool same_kind = !buckets_.empty() && buckets_.back().parameters.front().scalar_type() == p.scalar_type() &&
                           buckets_.back().parameters.front().device() == p.device();
    if (buckets_.empty() || !same_kind || bytes >= bucket_bytes) {
      buckets_.emplace_back();
      bytes = 0;
    }
    buckets_.back().parameters.push_back(p);
    bytes += p.numel() * static_cast<std::int64_t>(p.element_size());
  }
  for (Bucket& bucket : buckets_) {
    std::int64_t numel = 0;
    for (const auto& p : bucket.parameters) numel += p.numel();
    bucket.flat = at::empty({numel}, bucket.parameters.front().options());
  }
}

void GradientSync::all_reduce(Communicator& communicator) {
  at::NoGradGuard no_grad;
  std::vector<at::Tensor> flats;
  for (Bucket& bucket : buckets_) {
    std::int64_t offset = 0;
    for (auto& p : bucket.parameters) {
      at::Tensor slice = bucket.flat.narrow(0, offset, p.numel());
      if (p.grad().defined()) {
        slice.copy_(p.grad().reshape(-1));
      } else {
        slice.zero_();
      }
      offset += p.numel();
    }
    flats.push_back(bucket.flat);
  }
  communicator.start_all_reduce_sum(flats, "summing gradients").finish();
  for (Bucket& bucket : buckets_) {
    std::int64_t offset = 0;
    for (auto& p : bucket.parameters) {
      at::Tensor sum = bucket.flat.narrow(0, offset, p.numel()).view(p.sizes());
      if (p.grad().defined()) {
        p.mutable_grad().copy_(sum);
      } else {
        p.mutable_grad() = sum.clone();
      }
      offset += p.numel();
    }
  }
}

}  // namespace nmt
