#include "nmt/train/loss.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/nn/functional/loss.h>

#include <cmath>

#include "nmt/data/tokenizer.h"

namespace nmt {
namespace {

TEST(LabelSmoothedLoss, MatchesAHandComputation) {
  // One token, V = 5 (class 0 is padding), label 2, eps = 0.1.
  const at::Tensor logits = at::tensor({0.5, -1.0, 2.0, 0.0, 1.0}, at::kDouble).unsqueeze(0);
  const double z = std::exp(0.5) + std::exp(-1.0) + std::exp(2.0) + std::exp(0.0) + std::exp(1.0);
  const auto nlp = [&](double x) { return std::log(z) - x; };  // -log p
  // q: 0.9 on the label, 0.1 / 3 on classes 1, 3, 4; nothing on padding.
  const double expected = 0.9 * nlp(2.0) + 0.1 / 3 * (nlp(-1.0) + nlp(0.0) + nlp(1.0));
  const LossSums sums = label_smoothed_cross_entropy(logits, at::tensor({2}, at::kLong), 0.1);
  EXPECT_NEAR(sums.loss.item<double>(), expected, 1e-6);
  EXPECT_NEAR(sums.nll.item<double>(), nlp(2.0), 1e-6);
  EXPECT_EQ(sums.tokens, 1);
}

TEST(LabelSmoothedLoss, IgnoresPaddingAndEqualsCrossEntropyWithoutSmoothing) {
  at::manual_seed(3);
  const at::Tensor logits = at::randn({6, 11});
  const at::Tensor labels = at::tensor({4, 0, 7, 10, 0, 3}, at::kLong);
  const LossSums sums = label_smoothed_cross_entropy(logits, labels, 0.0);
  const double reference = torch::nn::functional::cross_entropy(
                               logits, labels,
                               torch::nn::functional::CrossEntropyFuncOptions().ignore_index(SpecialIds::kPad).reduction(
                                   torch::kSum))
                               .item<double>();
  EXPECT_NEAR(sums.loss.item<double>(), reference, 1e-4);
  EXPECT_EQ(sums.tokens, 4);
  // Changing the logits of padded rows changes nothing.
  at::Tensor changed = logits.clone();
  changed[1].fill_(100);
  changed[4].fill_(-100);
  EXPECT_NEAR(label_smoothed_cross_entropy(changed, labels, 0.2).loss.item<double>(),
              label_smoothed_cross_entropy(logits, labels, 0.2).loss.item<double>(), 1e-4);
}

TEST(LabelSmoothedLoss, GradientIsSoftmaxMinusTarget) {
  at::manual_seed(4);
  const at::Tensor logits = at::randn({3, 7}, at::kDouble).requires_grad_(true);
  const at::Tensor labels = at::tensor({1, 5, 6}, at::kLong);
  const double eps = 0.3;
  label_smoothed_cross_entropy(logits, labels, eps).loss.backward();
  at::Tensor q = at::full({3, 7}, eps / 5, at::kDouble);
  q.select(1, SpecialIds::kPad).zero_();
  for (int r = 0; r < 3; ++r) q[r][labels[r].item<std::int64_t>()] = 1 - eps;
  const at::Tensor expected = logits.detach().softmax(-1) - q;
  EXPECT_TRUE(at::allclose(logits.grad(), expected, 1e-6, 1e-6));
}

}  // namespace
}  // namespace nmt
