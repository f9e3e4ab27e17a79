#include "tests/model/model_test_util.h"

#include <gtest/gtest.h>
#include <torch/autograd.h>
#include <torch/nn/functional/loss.h>
#include <torch/optim/adam.h>

#include <algorithm>
#include <cmath>

#include "nmt/data/tokenizer.h"

namespace nmt::test {

void fit_briefly(Seq2Seq& model, const Batch& batch, int steps) {
  model->train();
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(0.04));
  for (int step = 0; step < steps; ++step) {
    optimizer.zero_grad();
    const auto out = model->forward(batch.source, batch.source_lengths, batch.target_in);
    torch::nn::functional::cross_entropy(
        out.logits.reshape({-1, out.logits.size(-1)}), batch.target_out.reshape(-1),
        torch::nn::functional::CrossEntropyFuncOptions().ignore_index(SpecialIds::kPad))
        .backward();
    optimizer.step();
  }
  model->eval();
}

std::vector<at::Tensor> expect_gradients_match_finite_differences(
    const std::function<at::Tensor()>& loss, const std::vector<std::pair<std::string, at::Tensor>>& checked,
    std::int64_t samples) {
  std::vector<at::Tensor> tensors;
  for (const auto& c : checked) tensors.push_back(c.second);
  const std::vector<at::Tensor> grads = torch::autograd::grad({loss()}, tensors);
  torch::NoGradGuard no_grad;
  const double eps = 1e-6;
  for (std::size_t k = 0; k < checked.size(); ++k) {
    at::Tensor flat = checked[k].second.view(-1);
    const at::Tensor grad = grads[k].reshape(-1);
    for (std::int64_t i = 0; i < flat.numel(); i += std::max<std::int64_t>(1, flat.numel() / samples)) {
      const double original = flat[i].item<double>();
      flat[i] = original + eps;
      const double plus = loss().item<double>();
      flat[i] = original - eps;
      const double minus = loss().item<double>();
      flat[i] = original;
      const double numeric = (plus - minus) / (2 * eps);
      EXPECT_NEAR(grad[i].item<double>(), numeric, 1e-6 + 1e-5 * std::abs(numeric)) << checked[k].first << "[" << i << "]";
    }
  }
  return grads;
}

}  // namespace nmt::test
