// Summing gradients over the ranks of a data-parallel group, in flat buckets.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <vector>

#include "nmt/dist/communicator.h"

namespace nmt {

/// Packs the gradients of `parameters` into a few flat buffers of about `bucket_bytes` each (in
/// reverse registration order, the order backward finishes them), all-reduces every bucket
/// (all started before the first is waited for, so Gloo's threads pipeline them) and copies the
/// sums back. One all-reduce per bucket instead of one per tensor: the reference model's 19
/// tensors (8.3 M floats, 31.7 MiB) fill one bucket; bigger models get several.
class GradientSync {
 public:
  explicit GradientSync(std::vector<at::Tensor> parameters, std::int64_t bucket_bytes = 25 << 20);

  /// Every parameter's gradient becomes its sum over the group's ranks. A parameter without a
  /// gradient on this rank (it took no batch this step) counts as zero and gets one.
  void all_reduce(Communicator& communicator);

  std::size_t buckets() const { return buckets_.size(); }

 private:
  struct Bucket {
    std::vector<at::Tensor> parameters;
    at::Tensor flat;  // [sum of numel], the parameters' dtype and device
  };
  std::vector<Bucket> buckets_;
};

}  // namespace nmt
