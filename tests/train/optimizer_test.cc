// The optimizer's state after a load: Adam's moments follow the parameters' device. A training
// state is read on the CPU; a run resumed on CUDA crashed in Adam's step (mixed devices) until the
// moments were moved. The meta device stands in for CUDA here, so the test runs on every machine.
#include <gtest/gtest.h>
#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/serialize/input-archive.h>
#include <torch/serialize/output-archive.h>

#include <sstream>

#include "nmt/train/optimizer.h"

namespace nmt {
namespace {

// One step on CPU parameters, so that every parameter has moments, written to bytes.
std::string saved_state(OptimizerType type, bool amsgrad) {
  std::vector<at::Tensor> parameters{torch::ones({3}).requires_grad_(), torch::ones({2, 2}).requires_grad_()};
  OptimizerOptions options;
  options.type = type;
  auto optimizer = make_optimizer(parameters, options, 1e-3);
  if (amsgrad) {
    for (auto& group : optimizer->param_groups()) {
      if (type == OptimizerType::adamw) {
        static_cast<torch::optim::AdamWOptions&>(group.options()).amsgrad(true);
      } else {
        static_cast<torch::optim::AdamOptions&>(group.options()).amsgrad(true);
      }
    }
  }
  for (auto& p : parameters) p.mutable_grad() = torch::full_like(p, 0.5);
  optimizer->step();
  torch::serialize::OutputArchive archive;
  optimizer->save(archive);
  std::ostringstream bytes;
  archive.save_to(bytes);
  return bytes.str();
}

template <typename State>
void expect_moments_on(torch::optim::Optimizer& optimizer, const torch::Device& device, bool amsgrad) {
  ASSERT_EQ(optimizer.state().size(), 2u);
  for (auto& entry : optimizer.state()) {
    auto* state = dynamic_cast<State*>(entry.second.get());
    ASSERT_NE(state, nullptr);
    EXPECT_EQ(state->exp_avg().device(), device);
    EXPECT_EQ(state->exp_avg_sq().device(), device);
    EXPECT_EQ(state->max_exp_avg_sq().defined(), amsgrad);
    if (amsgrad) {
      EXPECT_EQ(state->max_exp_avg_sq().device(), device);
    }
  }
}

template <typename State>
void check(OptimizerType type, bool amsgrad) {
  std::istringstream bytes(saved_state(type, amsgrad));
  torch::serialize::InputArchive archive;
  archive.load_from(bytes);
  const torch::Device meta("meta");
  std::vector<at::Tensor> parameters{torch::empty({3}, torch::TensorOptions().device(meta)).requires_grad_(),
                                     torch::empty({2, 2}, torch::TensorOptions().device(meta)).requires_grad_()};
  OptimizerOptions options;
  options.type = type;
  auto optimizer = make_optimizer(parameters, options, 1e-3);
  optimizer->load(archive);
  expect_moments_on<State>(*optimizer, torch::Device(torch::kCPU), amsgrad);  // as LibTorch loads them
  move_state_to_parameters_device(*optimizer);
  expect_moments_on<State>(*optimizer, meta, amsgrad);
}

TEST(OptimizerState, AdamMomentsFollowTheParametersDevice) {
  check<torch::optim::AdamParamState>(OptimizerType::adam, false);
  check<torch::optim::AdamParamState>(OptimizerType::adam, true);
}

TEST(OptimizerState, AdamWMomentsFollowTheParametersDevice) {
  check<torch::optim::AdamWParamState>(OptimizerType::adamw, false);
  check<torch::optim::AdamWParamState>(OptimizerType::adamw, true);
}

TEST(OptimizerState, AnOptimizerWithoutStateOrParametersIsLeftAlone) {
  std::vector<at::Tensor> parameters{torch::ones({3}).requires_grad_()};
  auto optimizer = make_optimizer(parameters, OptimizerOptions{}, 1e-3);
  move_state_to_parameters_device(*optimizer);
  EXPECT_TRUE(optimizer->state().empty());
}

}  // namespace
}  // namespace nmt
