#include "nmt/train/loss.h"

#include <ATen/ATen.h>
#include <torch/autograd.h>

#include "nmt/data/tokenizer.h"

namespace nmt {

namespace {

// Forward and backward of the smoothed loss in few passes over the [N, V] logits, instead of the
// chain of autograd ops (log_softmax, gather, sum, where) that each read or write the whole tensor.
// Per token: loss = (1 - eps)(lse - x_y) + eps / (V - 2) * sum_{k != y, pad} (lse - x_k),
// with lse = log sum_k exp(x_k); d loss / d x = softmax(x) - q (q: the smoothed target).
struct SmoothedCrossEntropy : public torch::autograd::Function<SmoothedCrossEntropy> {
  // Returns the per-token loss [N] (0 at padding); `nll` receives -log p_y [N] (0 at padding).
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& logits,
                            const at::Tensor& labels, double smoothing, at::Tensor* nll) {
    const std::int64_t vocab = logits.size(1);
    const at::Tensor x = logits.to(at::kFloat);
    const at::Tensor real = labels.ne(SpecialIds::kPad);
    const at::Tensor lse = at::logsumexp(x, /*dim=*/1);                   // [N]
    const at::Tensor token_nll = lse - x.gather(1, labels.unsqueeze(1)).squeeze(1);
    at::Tensor loss = token_nll;
    if (smoothing > 0) {
      // sum over k != y, pad of (lse - x_k) = (V lse - sum_k x_k) - nll - (lse - x_pad)
      const at::Tensor others = (static_cast<double>(vocab) * lse - x.sum(1)) - token_nll -
                                (lse - x.select(1, SpecialIds::kPad));
      loss = (1.0 - smoothing) * token_nll + smoothing / static_cast<double>(vocab - 2) * others;
    }
    *nll = token_nll.masked_fill(real.logical_not(), 0.0);
    ctx->save_for_backward({x, lse, labels});
    ctx->saved_data["smoothing"] = smoothing;
    ctx->saved_data["dtype"] = static_cast<std::int64_t>(logits.scalar_type());
    return loss.masked_fill(real.logical_not(), 0.0);
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor& x = saved[0];
    const at::Tensor& lse = saved[1];
    const at::Tensor& labels = saved[2];
    const double smoothing = ctx->saved_data["smoothing"].toDouble();
    const auto dtype = static_cast<at::ScalarType>(ctx->saved_data["dtype"].toInt());
    const double spread = smoothing > 0 ? smoothing / static_cast<double>(x.size(1) - 2) : 0.0;
    // softmax - q, scaled by the incoming gradient of each token (0 at padding).
    at::Tensor grad = (x - lse.unsqueeze(1)).exp_();
    if (spread > 0) {
      grad.sub_(spread);
      grad.select(1, SpecialIds::kPad).add_(spread);
    }
    const at::Tensor g = grad_outputs[0].masked_fill(labels.eq(SpecialIds::kPad), 0.0);
    grad.scatter_add_(1, labels.unsqueeze(1), at::full({labels.size(0), 1}, -(1.0 - smoothing - spread), grad.options()));
    grad.mul_(g.unsqueeze(1));
    return {grad.to(dtype), at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

}  // namespace

LossSums label_smoothed_cross_entropy(const at::Tensor& logits, const at::Tensor& labels, double smoothing) {
  TORCH_CHECK(logits.dim() == 2 && labels.dim() == 1 && logits.size(0) == labels.size(0),
              "loss: logits must be [N, V] and labels [N]");
  TORCH_CHECK(smoothing >= 0.0 && smoothing < 1.0, "loss: smoothing must be in [0, 1)");
  TORCH_CHECK(smoothing == 0.0 || logits.size(1) > 2, "loss: smoothing needs more than two classes");
  at::Tensor nll;
  const at::Tensor per_token = SmoothedCrossEntropy::apply(logits, labels, smoothing, &nll);
  LossSums sums;
  sums.loss = per_token.sum();
  sums.nll = nll.sum();
  sums.tokens = labels.ne(SpecialIds::kPad).sum().item<std::int64_t>();
  return sums;
}

}  // namespace nmt
