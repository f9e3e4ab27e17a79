#include "nmt/dist/gradient_sync.h"

#include <ATen/core/grad_mode.h>

#include <utility>

#include "nmt/core/error.h"

namespace nmt {

GradientSync::GradientSync(std::vector<at::Tensor> parameters, std::int64_t bucket_bytes) {
  std::int64_t bytes = 0;
  for (auto it = parameters.rbegin(); it != parameters.rend(); ++it) {
    const at::Tensor& p = *it;
    const bool same_kind = !buckets_.empty() && buckets_.back().slots.front().parameter.scalar_type() == p.scalar_type() &&
                           buckets_.back().slots.front().parameter.device() == p.device();
    if (buckets_.empty() || !same_kind || bytes >= bucket_bytes) {
      buckets_.emplace_back();
      bytes = 0;
    }
    buckets_.back().slots.push_back(Slot{p, 0, false});
    bytes += p.numel() * static_cast<std::int64_t>(p.element_size());
  }
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    Bucket& bucket = buckets_[b];
    std::int64_t numel = 0;
    for (std::size_t s = 0; s < bucket.slots.size(); ++s) {
      Slot& slot = bucket.slots[s];
      slot.offset = numel;
      numel += slot.parameter.numel();
      if (slot.parameter.requires_grad()) {
        const unsigned handle =
            slot.parameter.register_hook([this, b, s](const at::Tensor& incoming) { on_gradient(b, s, incoming); });
        hooks_.emplace_back(slot.parameter, handle);
      }
    }
    bucket.flat = at::empty({numel}, bucket.slots.front().parameter.options().requires_grad(false));
  }
}

GradientSync::~GradientSync() {
  for (auto& [parameter, handle] : hooks_) parameter.remove_hook(handle);
}

// The serial sum is an armed step without a backward: finish() fills every bucket from .grad (or
// zero), starts them all in order and waits.
void GradientSync::all_reduce(Communicator& communicator) {
  arm(communicator);
  finish();
}

void GradientSync::arm(Communicator& communicator) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (Bucket& bucket : buckets_) {
    bucket.filled = 0;
    for (Slot& slot : bucket.slots) slot.filled = false;
  }
  pending_.clear();
  next_to_start_ = 0;
  started_during_backward_ = 0;
  communicator_ = &communicator;
}

// Autograd calls this with the sum of a parameter's incoming gradients in this backward, before
// AccumulateGrad stores .grad = incoming (undefined .grad) or adds .grad += incoming: the bucket
// gets the same values, computed by the same float operation.
void GradientSync::on_gradient(std::size_t b, std::size_t s, const at::Tensor& incoming) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (communicator_ == nullptr) return;
  Bucket& bucket = buckets_[b];
  Slot& slot = bucket.slots[s];
  if (slot.filled) {
    throw Error("summing gradients: a parameter's gradient arrived twice in one armed backward");
  }
  at::NoGradGuard no_grad;
  at::Tensor slice = bucket.flat.narrow(0, slot.offset, slot.parameter.numel()).view(slot.parameter.sizes());
  const at::Tensor& previous = slot.parameter.grad();
  if (previous.defined()) {
    at::add_out(slice, previous, incoming);
  } else {
    slice.copy_(incoming);
  }
  slot.filled = true;
  ++bucket.filled;
  if (bucket.filled == bucket.slots.size()) {
    const std::size_t before = next_to_start_;
    start_full_buckets();
    started_during_backward_ += next_to_start_ - before;
  }
}

void GradientSync::start_full_buckets() {
  while (next_to_start_ < buckets_.size() && buckets_[next_to_start_].filled == buckets_[next_to_start_].slots.size()) {
    pending_.push_back(communicator_->start_all_reduce_sum({buckets_[next_to_start_].flat}, "summing gradients"));
    ++next_to_start_;
  }
}

void GradientSync::finish() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (communicator_ == nullptr) throw Error("summing gradients: finish() without arm()");
  struct Disarm {
    GradientSync* self;
    ~Disarm() { self->communicator_ = nullptr; }
  } disarm{this};
  {
    // Parameters no armed backward reached: their .grad as it stands (earlier batches of the
    // step, or all of them for all_reduce()), or zero.
    at::NoGradGuard no_grad;
    for (std::size_t b = next_to_start_; b < buckets_.size(); ++b) {
      Bucket& bucket = buckets_[b];
      for (Slot& slot : bucket.slots) {
        if (slot.filled) continue;
        at::Tensor slice = bucket.flat.narrow(0, slot.offset, slot.parameter.numel());
        if (slot.parameter.grad().defined()) {
          slice.copy_(slot.parameter.grad().reshape(-1));
        } else {
          slice.zero_();
        }
        slot.filled = true;
        ++bucket.filled;
      }
    }
  }
  start_full_buckets();
  std::vector<Communicator::PendingSum> pending = std::move(pending_);
  pending_.clear();
  lock.unlock();
  for (auto& sum : pending) sum.finish();
  copy_sums_back();
}

void GradientSync::copy_sums_back() {
  at::NoGradGuard no_grad;
  for (Bucket& bucket : buckets_) {
    for (const Slot& slot : bucket.slots) {
      const at::Tensor& p = slot.parameter;
      at::Tensor sum = bucket.flat.narrow(0, slot.offset, p.numel()).view(p.sizes());
      if (p.grad().defined()) {
        p.mutable_grad().copy_(sum);
      } else {
        p.mutable_grad() = sum.clone();
      }
    }
  }
}

}  // namespace nmt
