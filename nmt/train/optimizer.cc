#include "nmt/train/optimizer.h"

#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>

#include <cmath>

namespace nmt {

std::unique_ptr<torch::optim::Optimizer> make_optimizer(const std::vector<at::Tensor>& parameters,
                                                        const OptimizerOptions& o, double lr) {
  if (o.type == OptimizerType::adamw) {
    return std::make_unique<torch::optim::AdamW>(
        parameters, torch::optim::AdamWOptions(lr).betas({o.beta1, o.beta2}).eps(o.eps).weight_decay(o.weight_decay));
  }
  return std::make_unique<torch::optim::Adam>(
      parameters, torch::optim::AdamOptions(lr).betas({o.beta1, o.beta2}).eps(o.eps).weight_decay(o.weight_decay));
}

void set_learning_rate(torch::optim::Optimizer& optimizer, double lr) {
  for (auto& group : optimizer.param_groups()) group.options().set_lr(lr);
}

void scale_gradients_to_norm(const std::vector<at::Tensor>& parameters, double max_norm, double norm) {
  const double clip = max_norm / (norm + 1e-6);
  if (!std::isfinite(norm) || clip >= 1) return;
  torch::NoGradGuard no_grad;
  for (const auto& p : parameters) {
    if (p.grad().defined()) p.mutable_grad().mul_(clip);
  }
}

}  // namespace nmt
