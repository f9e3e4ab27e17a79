// The optimizer of a training run (optim.*) and what the step does to the gradients before it.
#pragma once

#include <torch/optim/optimizer.h>

#include <memory>
#include <vector>

#include "nmt/train/train_config.h"

namespace nmt {

/// Adam or AdamW over `parameters` with optim.* and the learning rate `lr`.
std::unique_ptr<torch::optim::Optimizer> make_optimizer(const std::vector<at::Tensor>& parameters,
                                                        const OptimizerOptions& options, double lr);

/// Moves the optimizer's per-parameter state (Adam's moments) to the parameters' device. A state
/// loaded from a file arrives on the CPU, and the step of a model on CUDA would then mix devices.
/// Every parameter of a model lives on one device, the first parameter's.
void move_state_to_parameters_device(torch::optim::Optimizer& optimizer);

/// Sets every parameter group's learning rate (the schedule's rate of the coming step).
void set_learning_rate(torch::optim::Optimizer& optimizer, double lr);

/// torch::nn::utils::clip_grad_norm_'s rule with a norm measured elsewhere (a group's rank 0):
/// gradients times max_norm / (norm + 1e-6) when that is below 1 and the norm is finite.
void scale_gradients_to_norm(const std::vector<at::Tensor>& parameters, double max_norm, double norm);

}  // namespace nmt
