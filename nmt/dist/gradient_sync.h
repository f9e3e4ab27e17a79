// Summing gradients over the ranks of a data-parallel group, in flat buckets, overlapped with
// backward (as PyTorch's DistributedDataParallel does) or after it.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <mutex>
#include <vector>

#include "nmt/dist/communicator.h"

namespace nmt {

/// Packs the gradients of `parameters` into flat buffers of about `bucket_bytes` each, in reverse
/// registration order (roughly the order backward finishes them), and all-reduces every bucket.
///
/// Two ways, with the same sums bit for bit (the same buckets, each element the same float adds):
/// - all_reduce(): after backward, copy every gradient into its bucket, start every bucket's sum,
///   wait, copy back (arm() and finish() with no backward between them).
/// - arm() before a step's last backward, finish() after it: a hook on each parameter (autograd
///   calls it with the parameter's incoming gradient just before adding it to .grad) writes
///   .grad + incoming (or incoming alone, where .grad is undefined: exactly what AccumulateGrad
///   will store) into the bucket; a bucket whose last parameter arrived starts its sum at once, while
///   backward goes on with the layers below. Buckets start strictly in order (every rank must issue
///   the same collectives in the same order), so a full bucket waits for the ones before it.
///   finish() fills and starts what backward did not reach, waits, and copies the sums back.
/// A parameter without a gradient on this rank (it took no batch this step) counts as zero and
/// gets one. The hooks live as long as this object (not movable) and do nothing unless armed.
class GradientSync {
 public:
  explicit GradientSync(std::vector<at::Tensor> parameters, std::int64_t bucket_bytes = kDefaultBucketBytes);
  ~GradientSync();
  GradientSync(const GradientSync&) = delete;
  GradientSync& operator=(const GradientSync&) = delete;

  /// 4 MiB: small enough that the output layer's gradient (finished first) is summed while the
  /// recurrent layers still run backward; large enough that a sum is not dominated by its latency
  /// (docs/benchmarks.md, "Overlapping the gradient sum with backward").
  static constexpr std::int64_t kDefaultBucketBytes = 4 << 20;

  /// Every parameter's gradient becomes its sum over the group's ranks (after backward).
  void all_reduce(Communicator& communicator);

  /// The next backward's gradients are summed as they arrive; call finish() after it.
  void arm(Communicator& communicator);
  /// After the armed backward (or instead of it, when this rank had no batch): every parameter's
  /// gradient becomes its sum over the group's ranks. Disarms, also when it throws.
  void finish();

  std::size_t buckets() const { return buckets_.size(); }
  /// Buckets whose sum the last armed backward started before it ended (for tests and profiling).
  std::size_t started_during_backward() const { return started_during_backward_; }

 private:
  struct Slot {
    at::Tensor parameter;
    std::int64_t offset = 0;  // in the bucket's flat buffer
    bool filled = false;      // this step's gradient is in the buffer
  };
  struct Bucket {
    std::vector<Slot> slots;
    at::Tensor flat;  // [sum of numel], the parameters' dtype and device
    std::size_t filled = 0;
  };

  void on_gradient(std::size_t bucket, std::size_t slot, const at::Tensor& incoming);
  void start_full_buckets();  // mutex_ held
  void copy_sums_back();

  std::vector<Bucket> buckets_;
  std::vector<std::pair<at::Tensor, unsigned>> hooks_;  // (parameter, hook handle) to remove
  std::mutex mutex_;                                    // hooks may run on autograd's device threads
  Communicator* communicator_ = nullptr;                // non-null while armed
  std::size_t next_to_start_ = 0;
  std::size_t started_during_backward_ = 0;
  std::vector<Communicator::PendingSum> pending_;
};

}  // namespace nmt
