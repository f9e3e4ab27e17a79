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

namespace {

template <typename State>
bool move_moments(torch::optim::OptimizerParamState* state, const torch::Device& device) {
  auto* moments = dynamic_cast<State*>(state);
  if (moments == nullptr) return false;
  moments->exp_avg(moments->exp_avg().to(device));
  moments->exp_avg_sq(moments->exp_avg_sq().to(device));
  if (moments->max_exp_avg_sq().defined()) moments->max_exp_avg_sq(moments->max_exp_avg_sq().to(device));
  return true;
}

}  // namespace

void move_state_to_parameters_device(torch::optim::Optimizer& optimizer) {
  if (optimizer.param_groups().empty() || optimizer.param_groups().front().params().empty()) return;
  const torch::Device device = optimizer.param_groups().front().params().front().device();
  // The state's keys are LibTorch's own (a string in 1.13, a pointer in 2.x): walk the values.
  for (auto& entry : optimizer.state()) {
    torch::optim::OptimizerParamState* state = entry.second.get();
    if (!move_moments<torch::optim::AdamParamState>(state, device)) {
      move_moments<torch::optim::AdamWParamState>(state, device);
    }
  }
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
