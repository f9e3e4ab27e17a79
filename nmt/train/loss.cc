#include "nmt/train/loss.h"

#include <ATen/ATen.h>
#include <torch/autograd.h>

#include "nmt/core/torch_compat.h"
#include "nmt/data/tokenizer.h"

namespace nmt {

namespace {

// Forward and backward of the smoothed loss in few passes over the [N, V] logits, instead of the
// chain of autograd ops (log_softmax, gather, sum, where) that each read or write the whole tensor
// and keep their own [N, V] results alive for backward.
// Per token, with log p = log_softmax(x):
//   loss = (1 - eps)(-log p_y) + eps / (V - 2) * sum_{k != y, pad} (-log p_k)
//   sum_{k != y, pad} (-log p_k) = -sum_k log p_k - (-log p_y) - (-log p_pad)
//   d loss / d x = p - q   (q: the smoothed target: 1 - eps at y, eps / (V - 2) elsewhere, 0 at pad)
// Passes over [N, V]: forward log_softmax (read, write) and one sum (read); backward exp and one
// multiply-add, both in place on the saved log-probabilities (the function cannot be backpropagated
// twice; training never does).
struct SmoothedCrossEntropy : public torch::autograd::Function<SmoothedCrossEntropy> {
  // Returns the per-token loss [N] (0 at padding); `nll` receives -log p_y [N] (0 at padding).
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& logits,
                            const at::Tensor& labels, double smoothing, at::Tensor* nll) {
    const std::int64_t vocab = logits.size(1);
    const at::Tensor log_probs = at::log_softmax(logits, /*dim=*/1, at::kFloat);  // [N, V]
    const at::Tensor padding = labels.eq(SpecialIds::kPad);
    const at::Tensor token_nll = log_probs.gather(1, labels.unsqueeze(1)).squeeze(1).neg();
    at::Tensor loss = token_nll;
    if (smoothing > 0) {
      const at::Tensor others = log_probs.sum(1).neg() - token_nll + log_probs.select(1, SpecialIds::kPad);
      loss = (1.0 - smoothing) * token_nll + smoothing / static_cast<double>(vocab - 2) * others;
    }
    *nll = token_nll.masked_fill(padding, 0.0);
    ctx->save_for_backward({log_probs, labels});
    ctx->saved_data["smoothing"] = smoothing;
    ctx->saved_data["dtype"] = static_cast<std::int64_t>(logits.scalar_type());
    return loss.masked_fill(padding, 0.0);
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    at::Tensor grad = saved[0];  // log p, turned into the gradient in place
    const at::Tensor& labels = saved[1];
    const double smoothing = ctx->saved_data["smoothing"].toDouble();
    const auto dtype = static_cast<at::ScalarType>(ctx->saved_data["dtype"].toInt());
    const double spread = smoothing > 0 ? smoothing / static_cast<double>(grad.size(1) - 2) : 0.0;
    // g (p - q) with g the incoming gradient of each token (0 at padding):
    //   g p - g spread everywhere, then + g spread at pad and - g (1 - eps - spread) at y.
    const at::Tensor g = grad_outputs[0].masked_fill(labels.eq(SpecialIds::kPad), 0.0).unsqueeze(1);  // [N, 1]
    grad.exp_();
    at::addcmul_out(grad, (g * -spread).expand_as(grad), grad, g.expand_as(grad));
    if (spread > 0) grad.select(1, SpecialIds::kPad).add_(g.squeeze(1) * spread);
    grad.scatter_add_(1, labels.unsqueeze(1), g * -(1.0 - smoothing - spread));
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
  const at::Tensor per_token = apply_autograd_function<SmoothedCrossEntropy>(logits, labels, smoothing, &nll);
  LossSums sums;
  sums.loss = per_token.sum();
  sums.nll = nll.sum();
  sums.tokens = labels.ne(SpecialIds::kPad).sum().item<std::int64_t>();
  return sums;
}

}  // namespace nmt
