#include "nmt/train/loss.h"

#include <ATen/ATen.h>

#include "nmt/data/tokenizer.h"

namespace nmt {

LossSums label_smoothed_cross_entropy(const at::Tensor& logits, const at::Tensor& labels, double smoothing) {
  TORCH_CHECK(logits.dim() == 2 && labels.dim() == 1 && logits.size(0) == labels.size(0),
              "loss: logits must be [N, V] and labels [N]");
  TORCH_CHECK(smoothing >= 0.0 && smoothing < 1.0, "loss: smoothing must be in [0, 1)");
  const std::int64_t vocab = logits.size(1);
  TORCH_CHECK(smoothing == 0.0 || vocab > 2, "loss: smoothing needs more than two classes");
  const at::Tensor real = labels.ne(SpecialIds::kPad);
  const at::Tensor log_probs = logits.log_softmax(/*dim=*/-1).to(at::kFloat);
  const at::Tensor nll = -log_probs.gather(1, labels.unsqueeze(1)).squeeze(1);  // -log p_y
  LossSums sums;
  sums.tokens = real.sum().item<std::int64_t>();
  sums.nll = nll.masked_select(real).sum();
  if (smoothing == 0.0) {
    sums.loss = sums.nll;
    return sums;
  }
  // Sum of -log p_k over every class but the label and padding.
  const at::Tensor all = -log_probs.sum(1);
  const at::Tensor others = all - nll + log_probs.select(1, SpecialIds::kPad);
  const at::Tensor per_token = (1.0 - smoothing) * nll + smoothing / static_cast<double>(vocab - 2) * others;
  sums.loss = per_token.masked_select(real).sum();
  return sums;
}

}  // namespace nmt
