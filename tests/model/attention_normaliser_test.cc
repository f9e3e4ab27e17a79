// The attention normalisers (nmt/model/attention_normaliser.h) against values worked by hand, their
// exact zeros, padding and batch invariance bit for bit, and their gradients against finite
// differences.
#include "nmt/model/attention_normaliser.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/autograd.h>

#include <cmath>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "nmt/kernels/kernels.h"
#include "nmt/model/attention_hardening.h"

// A namespace of its own: the unity build puts this file in one unit with others.
namespace nmt::normaliser_test {
namespace {

const double kInf = std::numeric_limits<double>::infinity();

at::Tensor row(std::vector<double> values) { return at::tensor(values, at::kDouble).unsqueeze(0); }

// Whether LibTorch's sqrt rounds correctly, as std::sqrt does (the one-pass kernels use it): Debian's
// LibTorch (no MKL) does; a LibTorch built with MKL may take MKL's vector sqrt, which promises 1 ulp
// and may miss it rarely, so an MKL build is never taken for exact. Otherwise 4,096 values in [0, 1)
// and [0, 10), evenly spaced (no generator: the test's own draws keep their seed), are compared.
bool libtorch_sqrt_rounds_correctly(at::ScalarType type) {
  if (at::hasMKL()) return false;
  const at::Tensor spaced = (at::arange(4096, at::kDouble) + 0.5) / 4096;
  const at::Tensor x = at::cat({spaced, spaced * 10}).to(type);
  const at::Tensor root = x.sqrt().to(at::kDouble), values = x.to(at::kDouble);
  for (std::int64_t i = 0; i < x.size(0); ++i) {
    const double v = values[i].item<double>(), r = root[i].item<double>();
    const double exact = type == at::kFloat ? static_cast<double>(std::sqrt(static_cast<float>(v))) : std::sqrt(v);
    if (r != exact) return false;
  }
  return true;
}

void expect_row(const at::Tensor& weights, const std::vector<double>& expected, double tolerance = 1e-12) {
  ASSERT_EQ(weights.size(-1), static_cast<std::int64_t>(expected.size()));
  for (std::size_t j = 0; j < expected.size(); ++j) {
    EXPECT_NEAR(weights[0][static_cast<std::int64_t>(j)].item<double>(), expected[j], tolerance) << "column " << j;
  }
}

// Worked by hand: sort, find the largest k with 1 + k z_(k) > sum_{j<=k} z_(j), tau = (that sum - 1) / k.
TEST(Sparsemax, ValuesWorkedByHand) {
  // [0.5, 0.2, -1]: k = 2 (1 + 2 * 0.2 = 1.4 > 0.7; 1 - 3 = -2 < -0.3), tau = (0.7 - 1) / 2 = -0.15.
  expect_row(sparsemax_last(row({0.5, 0.2, -1})), {0.65, 0.35, 0});
  // [3, 0, 0]: k = 1 (1 + 0 > 3 fails), tau = 2: all the weight on the first.
  expect_row(sparsemax_last(row({3, 0, 0})), {1, 0, 0});
  // Ties: [1, 1, 0] gives k = 2 and tau = 0.5; three equal scores give a third each.
  expect_row(sparsemax_last(row({1, 1, 0})), {0.5, 0.5, 0});
  expect_row(sparsemax_last(row({2, 2, 2})), {1.0 / 3, 1.0 / 3, 1.0 / 3});
  // Shifting every score changes nothing.
  expect_row(sparsemax_last(row({100.5, 100.2, 99})), {0.65, 0.35, 0}, 1e-12);
}

// Worked by hand with x = z / 2: tau_k = m_k - sqrt((1 - s_k) / k), the largest k with tau_k <= x_(k).
TEST(Entmax15, ValuesWorkedByHand) {
  // [1, 0]: x = [0.5, 0]; k = 2: m = 0.25, s = 0.125, tau = 0.25 - sqrt(0.4375).
  const double tau = 0.25 - std::sqrt(0.4375);
  expect_row(entmax15_last(row({1, 0})), {(0.5 - tau) * (0.5 - tau), tau * tau});
  // [4, 0]: x = [2, 0]; k = 2 has (1 - s) / k < 0, so k = 1, tau = 1: [1, 0], an exact zero.
  expect_row(entmax15_last(row({4, 0})), {1, 0});
  // [2, 0]: the boundary, k = 2 with tau = 0 = x_(2): [1, 0].
  expect_row(entmax15_last(row({2, 0})), {1, 0});
  // Ties: equal scores share equally.
  expect_row(entmax15_last(row({0.3, 0.3, 0.3, 0.3})), {0.25, 0.25, 0.25, 0.25});
}

TEST(AttentionNormaliser, SumToOneWithExactZerosWhereSoftmaxHasNone) {
  at::manual_seed(3);
  const at::Tensor scores = at::randn({16, 23}, at::kDouble) * 3;
  for (const auto normaliser :
       {AttentionNormaliser::softmax, AttentionNormaliser::sparsemax, AttentionNormaliser::entmax15}) {
    SCOPED_TRACE(name_of(normaliser));
    const at::Tensor weights = normalise_attention(scores, normaliser);
    EXPECT_TRUE(at::allclose(weights.sum(-1), at::ones({16}, at::kDouble), 0, 1e-12));
    EXPECT_TRUE((weights >= 0).all().item<bool>());
    const std::int64_t zeros = (weights == 0).sum().item<std::int64_t>();
    if (normaliser == AttentionNormaliser::softmax) {
      EXPECT_EQ(zeros, 0);
    } else {
      EXPECT_GT(zeros, 16 * 23 / 2) << "scores of spread 3 leave most positions out";
      // Every position with a weight scores above every position without one, row by row.
      const at::Tensor lowest_in = at::where(weights > 0, scores, at::full_like(scores, kInf)).amin(-1);
      const at::Tensor highest_out = at::where(weights == 0, scores, at::full_like(scores, -kInf)).amax(-1);
      EXPECT_TRUE((lowest_in > highest_out).all().item<bool>());
    }
  }
  // sparsemax is sparser than 1.5-entmax, which is sparser than softmax.
  EXPECT_GT((sparsemax_last(scores) == 0).sum().item<std::int64_t>(),
            (entmax15_last(scores) == 0).sum().item<std::int64_t>());
}

// The one-pass kernels that decoding uses (nmt/kernels/sparse_normalisers.cc) against the closed
// forms, bit for bit, in float and double: rows of every length from 1 to 70 with padding after
// them, scores spread from 0.01 to 300 (from all positions in the support to one), ties (scores
// rounded to a grid), a row of equal scores, huge and tiny magnitudes, and the rows worked by hand.
TEST(AttentionNormaliser, OnePassKernelsEqualTheClosedFormsBitForBit) {
  at::manual_seed(13);
  for (const auto type : {at::kFloat, at::kDouble}) {
    const auto options = at::TensorOptions().dtype(type);
    std::vector<at::Tensor> batches;
    for (const double spread : {0.01, 0.3, 1.0, 3.0, 30.0, 300.0}) {
      at::Tensor scores = at::randn({70, 70}, options) * spread;
      // Row r has r + 1 real positions.
      scores.masked_fill_(at::arange(70).unsqueeze(0) > at::arange(70).unsqueeze(1), -kInf);
      batches.push_back(scores);
      batches.push_back((scores * 4).round() / 4);  // ties
    }
    batches.push_back(at::full({3, 11}, 0.7, options));
    batches.push_back(at::randn({9, 4}, options).t());        // not contiguous
    batches.push_back(at::randn({2, 3, 13}, options) * 2);    // three dimensions
    batches.push_back(at::tensor({1e30, -1e30, 1e29, 3.0, -kInf}, options).unsqueeze(0));
    batches.push_back(at::tensor({1e-30, -1e-30, 0.0, 2e-30, 1e-38}, options).unsqueeze(0));
    for (const auto& r : std::vector<std::vector<double>>{
             {0.5, 0.2, -1}, {3, 0, 0}, {1, 1, 0}, {2, 2, 2}, {1, 0}, {4, 0}, {2, 0}, {0.3, 0.3, 0.3, 0.3}}) {
      batches.push_back(row(r).to(type));
    }
    // 1.5-entmax's closed form takes a sqrt; where LibTorch's is not correctly rounded (PyTorch 2.11's
    // wheel on an AVX-512 Xeon differed by 1 ulp) the kernel is held to a few ulps instead of bits.
    const bool exact_sqrt = libtorch_sqrt_rounds_correctly(type);
    if (!exact_sqrt) std::cout << "LibTorch's " << c10::toString(type) << " sqrt is not correctly rounded here\n";
    const double ulps = type == at::kFloat ? 4 * 1.2e-7 : 4 * 2.3e-16;
    for (std::size_t b = 0; b < batches.size(); ++b) {
      SCOPED_TRACE(std::string(c10::toString(type)) + " batch " + std::to_string(b));
      const at::Tensor& scores = batches[b];
      const at::Tensor sparse = sparsemax_rows(scores), closed_sparse = sparsemax_last(scores);
      const at::Tensor entmax = entmax15_rows(scores), closed_entmax = entmax15_last(scores);
      EXPECT_TRUE(at::equal(sparse, closed_sparse)) << (sparse - closed_sparse).abs().max().item<double>();
      if (exact_sqrt) {
        EXPECT_TRUE(at::equal(entmax, closed_entmax)) << (entmax - closed_entmax).abs().max().item<double>();
      } else {
        EXPECT_TRUE(at::allclose(entmax, closed_entmax, ulps, ulps)) << (entmax - closed_entmax).abs().max().item<double>();
        EXPECT_TRUE(at::equal(entmax == 0, closed_entmax == 0)) << "the same support";
      }
      EXPECT_TRUE((sparse.masked_select(scores.isneginf()) == 0).all().item<bool>());
    }
  }
  // Decoding takes the kernels (no autograd); training, which needs the gradient, the closed forms.
  const at::Tensor scores = at::randn({4, 9}, at::kFloat);
  EXPECT_TRUE(at::equal(normalise_attention(scores, AttentionNormaliser::entmax15), entmax15_rows(scores)));
  EXPECT_THROW(entmax15_rows(scores.clone().requires_grad_(true)), c10::Error);
}

// Padding (-inf) gets weight 0 and changes nothing else, bit for bit, in float and double; a row's
// weights do not depend on the other rows of its batch.
TEST(AttentionNormaliser, PaddingAndBatchInvarianceBitForBit) {
  at::manual_seed(5);
  for (const auto type : {at::kFloat, at::kDouble}) {
    for (const auto normaliser :
         {AttentionNormaliser::softmax, AttentionNormaliser::sparsemax, AttentionNormaliser::entmax15}) {
      SCOPED_TRACE(name_of(normaliser));
      const std::vector<std::int64_t> lengths = {9, 3, 17, 1, 12};
      at::Tensor batch = at::full({5, 17}, -kInf, at::TensorOptions().dtype(type));
      std::vector<at::Tensor> alone;
      for (std::size_t i = 0; i < lengths.size(); ++i) {
        const at::Tensor scores = at::randn({1, lengths[i]}, at::TensorOptions().dtype(type)) * 2;
        batch[static_cast<std::int64_t>(i)].narrow(0, 0, lengths[i]).copy_(scores[0]);
        alone.push_back(normalise_attention(scores, normaliser));
      }
      const at::Tensor together = normalise_attention(batch, normaliser);
      for (std::size_t i = 0; i < lengths.size(); ++i) {
        const at::Tensor r = together[static_cast<std::int64_t>(i)];
        EXPECT_TRUE(at::equal(r.narrow(0, 0, lengths[i]), alone[i][0])) << "row " << i;
        EXPECT_TRUE((r.narrow(0, lengths[i], 17 - lengths[i]) == 0).all().item<bool>()) << "row " << i;
      }
    }
  }
}

// Central finite differences in double precision against autograd, through the support (scores
// spread so that no score sits on the edge of it) and through padding (whose gradient is 0).
TEST(AttentionNormaliser, GradientsMatchFiniteDifferences) {
  at::manual_seed(7);
  for (const auto normaliser : {AttentionNormaliser::sparsemax, AttentionNormaliser::entmax15}) {
    SCOPED_TRACE(name_of(normaliser));
    at::Tensor scores = at::randn({4, 9}, at::kDouble);
    scores[1].narrow(0, 6, 3).fill_(-kInf);
    scores.requires_grad_(true);
    const at::Tensor probe = at::randn({4, 9}, at::kDouble);
    const auto loss = [&] { return (normalise_attention(scores, normaliser) * probe).sum(); };
    const at::Tensor grad = torch::autograd::grad({loss()}, {scores})[0];
    ASSERT_FALSE(grad.isnan().any().item<bool>());
    at::NoGradGuard no_grad;
    const double eps = 1e-6;
    std::int64_t in_support = 0;
    for (std::int64_t b = 0; b < 4; ++b) {
      for (std::int64_t j = 0; j < 9; ++j) {
        const double original = scores[b][j].item<double>();
        if (std::isinf(original)) {
          EXPECT_EQ(grad[b][j].item<double>(), 0) << b << "," << j;
          continue;
        }
        scores[b][j] = original + eps;
        const double plus = loss().item<double>();
        scores[b][j] = original - eps;
        const double minus = loss().item<double>();
        scores[b][j] = original;
        const double numeric = (plus - minus) / (2 * eps);
        EXPECT_NEAR(grad[b][j].item<double>(), numeric, 1e-7 + 1e-6 * std::abs(numeric)) << b << "," << j;
        if (grad[b][j].item<double>() != 0) ++in_support;
      }
    }
    EXPECT_GT(in_support, 4) << "the check must pass through some support";
  }
}

// Hard attention outside training is the argmax: one-hot rows, the first of equal scores, never a
// padded position.
TEST(TrainedHardAttention, ArgmaxIsOneHotAtTheFirstBestScore) {
  const at::Tensor a = normalise_attention(at::tensor({1.0, 3.0, 3.0, -kInf, 0.0, -1.0, -kInf, -kInf}, at::kDouble)
                                               .reshape({2, 4}),
                                           AttentionNormaliser::hard);
  EXPECT_TRUE(at::equal(a, at::tensor({0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0}, at::kDouble).reshape({2, 4})));
}

// The straight-through Gumbel-softmax: forward exactly one-hot at the argmax of the noisy soft
// weights y = softmax((e + g) / tau), backward y's gradient. The same noise is drawn again from the
// same seed and y computed with ATen's softmax.
TEST(TrainedHardAttention, StraightThroughIsOneHotForwardAndGumbelSoftmaxBackward) {
  at::Tensor scores = at::randn({3, 6}, at::kDouble);
  scores[2].narrow(0, 4, 2).fill_(-kInf);
  scores.requires_grad_(true);
  const at::Tensor probe = at::randn({3, 6}, at::kDouble);
  const double tau = 0.7;
  at::manual_seed(21);
  const at::Tensor hard = gumbel_straight_through(scores, tau);
  const at::Tensor grad = torch::autograd::grad({(hard * probe).sum()}, {scores})[0];
  at::manual_seed(21);
  const at::Tensor u = at::rand_like(scores).clamp_(1e-20, 1 - 1e-7);
  const at::Tensor soft = at::softmax((scores - (-u.log()).log()) / tau, -1);
  const at::Tensor expected = torch::autograd::grad({(soft * probe).sum()}, {scores})[0];
  EXPECT_TRUE(at::equal(hard, hard_weights(soft.detach())));
  EXPECT_TRUE(at::equal(hard.sum(-1), at::ones({3}, at::kDouble)));
  EXPECT_TRUE(at::equal(hard[2].narrow(0, 4, 2), at::zeros({2}, at::kDouble)));
  EXPECT_TRUE(at::allclose(grad, expected, 1e-12, 1e-12)) << grad << expected;
  EXPECT_GT(grad.abs().sum().item<double>(), 0);
  // The noise makes it a sample: over many draws, the argmax is not always the best score's.
  at::manual_seed(22);
  const at::Tensor even = at::zeros({2000, 3}, at::kDouble);
  const at::Tensor picks = gumbel_straight_through(even, 1.0).sum(0);
  for (std::int64_t j = 0; j < 3; ++j) EXPECT_NEAR(picks[j].item<double>(), 2000.0 / 3, 100) << j;
}

TEST(TrainedHardAttention, TemperatureFallsFromOneToAHalf) {
  EXPECT_EQ(gumbel_temperature(0), 1.0);
  EXPECT_DOUBLE_EQ(gumbel_temperature(1000), std::exp(-0.3));
  EXPECT_GT(gumbel_temperature(2300), 0.5);
  EXPECT_EQ(gumbel_temperature(2400), 0.5);
  EXPECT_EQ(gumbel_temperature(100000), 0.5);
}

TEST(AttentionNormaliser, NamesParseAndPrint) {
  EXPECT_EQ(enum_names(AttentionNormaliser::softmax).parse("entmax15"), AttentionNormaliser::entmax15);
  EXPECT_EQ(enum_names(AttentionNormaliser::softmax).name(AttentionNormaliser::sparsemax), "sparsemax");
}

}  // namespace
}  // namespace nmt::normaliser_test
