// The output layer's log-softmax, in place over each row (kernels.h).
#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>

#include "nmt/kernels/kernels.h"
#include "nmt/kernels/sentence_kernels.h"

namespace nmt {

at::Tensor log_softmax_last(at::Tensor logits) {
  if (!inference_kernels_apply(logits, at::Tensor()) || logits.dim() != 2 || !logits.is_contiguous()) {
    return logits.log_softmax(/*dim=*/-1);
  }
  const std::int64_t size = logits.size(1);
  AT_DISPATCH_FLOATING_TYPES(logits.scalar_type(), "log_softmax_last", [&] {
    scalar_t* x = logits.data_ptr<scalar_t>();
    at::parallel_for(0, logits.size(0), 1, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t r = begin; r < end; ++r) log_softmax_sentence(x + r * size, size);
    });
  });
  return logits;
}

}  // namespace nmt
