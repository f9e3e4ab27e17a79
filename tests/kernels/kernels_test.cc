#include "nmt/kernels/kernels.h"

#include "nmt/core/error.h"
#include "nmt/kernels/dispatch.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/autograd.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace nmt {
namespace {

struct Inputs {
  at::Tensor query, keys, v;  // [B, A], [B, S, A], [A]
};

Inputs make_inputs(std::int64_t batch, std::int64_t src_len, std::int64_t size, at::ScalarType dtype,
                   bool requires_grad) {
  at::manual_seed(5);
  Inputs in;
  in.query = at::randn({batch, size}, dtype).requires_grad_(requires_grad);
  in.keys = (1.5 * at::randn({batch, src_len, size}, dtype)).requires_grad_(requires_grad);
  in.v = at::randn({size}, dtype).requires_grad_(requires_grad);
  return in;
}

double max_abs_diff(const at::Tensor& a, const at::Tensor& b) { return (a - b).abs().max().item<double>(); }

// 1.4e-7 is the bound measured over every float (kernels.cc); the test samples [-12, 12] densely.
TEST(FastTanh, IsWithin1p4e7OfTanhEverywhereAndExactlyOdd) {
  double worst = 0;
  std::vector<float> xs = {0.0f, 1e-30f, 1e-8f, 1e-3f, 0.2999999f, 0.3f, 0.3000001f, 8.999f, 9.0f, 9.001f, 30.0f, 1e30f};
  for (int i = -200000; i <= 200000; ++i) xs.push_back(static_cast<float>(i) * 6e-5f);  // [-12, 12]
  for (const float x : xs) {
    for (const float s : {x, -x}) {
      const double error = std::abs(static_cast<double>(fast_tanh(s)) - std::tanh(static_cast<double>(s)));
      worst = std::max(worst, error);
      ASSERT_LT(error, 1.4e-7) << "x = " << s;
    }
    ASSERT_EQ(fast_tanh(-x), -fast_tanh(x)) << "x = " << x;
  }
  EXPECT_GT(worst, 0.0);  // it is an approximation: the test would notice std::tanh sneaking in
  EXPECT_EQ(fast_tanh(0.0f), 0.0f);
  EXPECT_EQ(fast_tanh(std::numeric_limits<float>::infinity()), 1.0f);
  EXPECT_EQ(fast_tanh(-std::numeric_limits<float>::infinity()), -1.0f);
  EXPECT_TRUE(std::isnan(fast_tanh(std::numeric_limits<float>::quiet_NaN())));
}

TEST(FastExp, IsWithin3e7RelativeOfExpForNonPositiveArguments) {
  for (int i = 0; i <= 1000000; ++i) {
    const float y = -static_cast<float>(i) * 8.7e-5f;  // [-87, 0]
    const double expected = std::exp(static_cast<double>(y));
    ASSERT_LT(std::abs(fast_exp_nonpositive(y) - expected), 3e-7 * expected) << "y = " << y;
  }
  EXPECT_EQ(fast_exp_nonpositive(0.0f), 1.0f);
  EXPECT_LT(fast_exp_nonpositive(-1000.0f), 1e-37f);  // below -87: exp(-87), which no sum notices
  EXPECT_LT(fast_exp_nonpositive(-std::numeric_limits<float>::infinity()), 1e-37f);
  EXPECT_TRUE(std::isnan(fast_exp_nonpositive(std::numeric_limits<float>::quiet_NaN())));
}

TEST(LogSoftmaxLast, MatchesATenAndKeepsRowsIndependent) {
  at::manual_seed(9);
  for (const auto dtype : {at::kFloat, at::kDouble}) {
    for (const std::int64_t size : {7, 16, 8003}) {  // tail only, no tail, both
      const at::Tensor logits = 4 * at::randn({6, size}, dtype);
      const at::Tensor expected = logits.log_softmax(-1);
      const at::Tensor got = log_softmax_last(logits.clone());
      // Within float rounding of the results (log-probabilities down to about -30 here).
      const double rtol = dtype == at::kFloat ? 3e-7 : 1e-14;
      EXPECT_TRUE(at::allclose(got, expected, rtol, 100 * rtol)) << dtype << " " << size << ": " << max_abs_diff(got, expected);
      for (std::int64_t r = 0; r < 6; ++r) {
        EXPECT_TRUE(at::equal(log_softmax_last(logits.slice(0, r, r + 1).clone())[0], got[r])) << "row " << r;
      }
    }
  }
}

TEST(LogSoftmaxLast, HandlesMinusInfinityNaNAndAutograd) {
  at::Tensor logits = at::randn({3, 40});
  logits[0][5] = -std::numeric_limits<float>::infinity();
  logits[1][7] = std::numeric_limits<float>::quiet_NaN();
  const at::Tensor expected = logits.log_softmax(-1);
  const at::Tensor got = log_softmax_last(logits.clone());
  EXPECT_EQ(got[0][5].item<float>(), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(at::allclose(got[0], expected[0], 1e-6, 1e-6));
  EXPECT_TRUE(at::all(at::isnan(got[1])).item<bool>()) << "NaN anywhere in a row: NaN everywhere, as ATen";
  EXPECT_TRUE(at::allclose(got[2], expected[2], 1e-6, 1e-6));
  const at::Tensor tracked = at::randn({2, 9}).requires_grad_(true);  // autograd: ATen's, differentiable
  log_softmax_last(tracked * 1).sum().backward();
  EXPECT_TRUE(tracked.grad().defined());
}

// Greedy search's choice, by its definition: log_softmax_last, then the first maximum of
// r + log p in float over the values that are not NaN ((-inf, 0) when all are).
std::pair<float, std::int64_t> first_best(const at::Tensor& logits_row, float r) {
  const at::Tensor lp = log_softmax_last(logits_row.unsqueeze(0).clone().contiguous())[0];
  const float* v = lp.data_ptr<float>();
  std::pair<float, std::int64_t> best{-std::numeric_limits<float>::infinity(), 0};
  bool found = false;
  for (std::int64_t i = 0; i < lp.size(0); ++i) {
    const float s = r + v[i];
    if (s != s) continue;
    if (!found || s > best.first) best = {s, i};
    found = true;
  }
  return best;
}

void expect_best_is_the_definitions(const at::Tensor& logits, const at::Tensor& offset, const std::string& what) {
  const BestOfRows got = best_of_log_softmax(logits, offset);
  ASSERT_EQ(got.ids.size(), static_cast<std::size_t>(logits.size(0))) << what;
  for (std::int64_t r = 0; r < logits.size(0); ++r) {
    const auto expected = first_best(logits[r], offset[r].item<float>());
    const auto at = static_cast<std::size_t>(r);
    EXPECT_EQ(got.ids[at], expected.second) << what << ", row " << r;
    // Bits: the same float, or both NaN-free infinities of one sign.
    EXPECT_EQ(std::memcmp(&got.scores[at], &expected.first, sizeof(float)), 0)
        << what << ", row " << r << ": " << got.scores[at] << " vs " << expected.first;
  }
}

TEST(BestOfLogSoftmax, IsTheFirstMaximumOfTheWrittenLogSoftmax) {
  c10::NoGradGuard no_grad;
  at::manual_seed(31);
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (const std::int64_t size : {1, 7, 16, 17, 33, 4000, 8003}) {  // tail only, lanes only, both
    const at::Tensor logits = 4 * at::randn({9, size});
    expect_best_is_the_definitions(logits, -10 * at::rand({9}), "random " + std::to_string(size));
    // Ties: the largest value repeated; the first copy wins.
    at::Tensor tied = logits.clone();
    for (std::int64_t r = 0; r < 9; ++r) {
      tied[r].fill_(-1.0f);
      tied[r][size - 1] = 3.0f;
      tied[r][(size - 1) / 2] = 3.0f;
    }
    expect_best_is_the_definitions(tied, at::zeros({9}), "ties " + std::to_string(size));
  }
  // Values below the maximum that round to the same score once a large offset is added: the first
  // of them wins, not the maximum's position (a scan from the maximum would get this wrong).
  at::Tensor close = 1e-3 * at::randn({4, 300});
  close[0][250] = close[0].max().item<float>() + 1e-4f;
  const at::Tensor far = at::full({4}, -1e7f);  // a spacing of 1 between floats there
  expect_best_is_the_definitions(close, far, "collapsed by the offset");
  const BestOfRows collapsed = best_of_log_softmax(close, far);
  EXPECT_LT(collapsed.ids[0], 250) << "the offset's rounding makes an earlier piece tie with the maximum";

  // Infinities and NaN: -inf pieces never win against a finite one; NaN or +inf in a row, a NaN or
  // -inf offset, or a row of -inf give what ranking the written row gives.
  at::Tensor odd = at::randn({8, 40});
  odd[0][0] = -inf;
  odd[0][39] = -inf;
  odd[1][5] = nan;
  odd[2][6] = inf;
  odd[3].fill_(-inf);
  const at::Tensor r = at::tensor({0.0f, -2.0f, -3.0f, 0.0f, nan, -inf, inf, -1e30f});
  expect_best_is_the_definitions(odd, r, "infinities and NaN");
  const BestOfRows got = best_of_log_softmax(odd, r);
  EXPECT_EQ(got.scores[1], -inf);  // a NaN in the row: every log p is NaN, nothing ranks
  EXPECT_EQ(got.scores[4], -inf);  // a NaN offset likewise
  EXPECT_EQ(got.scores[6], inf);   // +inf offset: every value +inf, the first piece
  EXPECT_EQ(got.ids[6], 0);

  // A row's choice does not depend on its batch.
  const at::Tensor batch = 3 * at::randn({12, 500}), offsets = -5 * at::rand({12});
  const BestOfRows all = best_of_log_softmax(batch, offsets);
  for (std::int64_t row = 0; row < 12; ++row) {
    const BestOfRows one = best_of_log_softmax(batch.slice(0, row, row + 1), offsets.slice(0, row, row + 1));
    EXPECT_EQ(one.ids[0], all.ids[static_cast<std::size_t>(row)]);
    EXPECT_EQ(one.scores[0], all.scores[static_cast<std::size_t>(row)]);
  }
  EXPECT_FALSE(best_of_log_softmax_applies(batch.to(at::kDouble)));
  EXPECT_FALSE(best_of_log_softmax_applies(batch[0]));
}

// A = 37 takes the kernel's tail path (not a multiple of its 16 lanes), A = 64 none.
class AdditiveEnergyKernel : public ::testing::TestWithParam<std::int64_t> {};

TEST_P(AdditiveEnergyKernel, ForwardAndGradientsMatchTheTensorFormula) {
  for (const auto dtype : {at::kFloat, at::kDouble}) {
    const double tolerance = dtype == at::kFloat ? 2e-5 : 1e-12;
    const Inputs fused = make_inputs(4, 7, GetParam(), dtype, true);
    const Inputs plain = make_inputs(4, 7, GetParam(), dtype, true);
    const at::Tensor e = additive_energy(fused.query, fused.keys, fused.v);
    const at::Tensor expected = additive_energy_reference(plain.query, plain.keys, plain.v);
    ASSERT_EQ(e.sizes(), (std::vector<std::int64_t>{4, 7}));
    EXPECT_LT(max_abs_diff(e, expected), tolerance) << dtype;

    const at::Tensor weights = at::randn({4, 7}, dtype);  // a generic upstream gradient
    (e * weights).sum().backward();
    (expected * weights).sum().backward();
    EXPECT_LT(max_abs_diff(fused.query.grad(), plain.query.grad()), tolerance) << dtype;
    EXPECT_LT(max_abs_diff(fused.keys.grad(), plain.keys.grad()), tolerance) << dtype;
    EXPECT_LT(max_abs_diff(fused.v.grad(), plain.v.grad()), 10 * tolerance) << dtype;  // sums over 28 rows
  }
}

// Central differences in double against the kernel's own backward, for every input element.
TEST_P(AdditiveEnergyKernel, GradientsMatchFiniteDifferences) {
  Inputs in = make_inputs(2, 3, GetParam(), at::kDouble, true);
  const at::Tensor weights = at::randn({2, 3}, at::kDouble);
  const auto objective = [&] { return (additive_energy(in.query, in.keys, in.v) * weights).sum(); };
  objective().backward();
  const double h = 1e-6;
  for (at::Tensor* input : {&in.query, &in.keys, &in.v}) {
    const at::Tensor analytic = input->grad().reshape(-1);
    at::Tensor flat = input->detach().view(-1);
    for (std::int64_t i = 0; i < flat.numel(); ++i) {
      at::NoGradGuard no_grad;
      const double original = flat[i].item<double>();
      flat[i] = original + h;
      const double plus = objective().item<double>();
      flat[i] = original - h;
      const double minus = objective().item<double>();
      flat[i] = original;
      ASSERT_NEAR((plus - minus) / (2 * h), analytic[i].item<double>(), 1e-7) << "element " << i;
    }
  }
}

// A sentence's energies are the same bits alone as in any batch, with or without autograd.
TEST_P(AdditiveEnergyKernel, RowsDoNotDependOnTheBatchOrOnAutograd) {
  const Inputs in = make_inputs(5, 9, GetParam(), at::kFloat, false);
  const at::Tensor batched = additive_energy(in.query, in.keys, in.v);
  for (std::int64_t b = 0; b < 5; ++b) {
    const at::Tensor alone = additive_energy(in.query.slice(0, b, b + 1), in.keys.slice(0, b, b + 1), in.v);
    EXPECT_TRUE(at::equal(alone[0], batched[b])) << "sentence " << b;
    const at::Tensor shorter = additive_energy(in.query.slice(0, b, b + 1), in.keys.slice(0, b, b + 1).slice(1, 0, 4), in.v);
    EXPECT_TRUE(at::equal(shorter[0], batched[b].slice(0, 0, 4))) << "sentence " << b << ", fewer positions";
  }
  const Inputs tracked = make_inputs(5, 9, GetParam(), at::kFloat, true);
  EXPECT_TRUE(at::equal(additive_energy(tracked.query, tracked.keys, tracked.v).detach(), batched));
}

INSTANTIATE_TEST_SUITE_P(Sizes, AdditiveEnergyKernel, ::testing::Values(37, 64));

// Masked positions are -inf (the inference kernel skips them); the others keep their bits, on the
// kernel path and on the autograd path alike.
TEST(AdditiveEnergy, MaskedPositionsAreMinusInfinityAndTheOthersUnchanged) {
  const Inputs in = make_inputs(3, 7, 32, at::kFloat, false);
  at::Tensor mask = at::ones({3, 7}, at::kBool);
  mask[0].slice(0, 4).fill_(false);  // padding after 4 real positions
  mask[2][1] = false;                // a hole, which the kernel must also honour
  mask[2][6] = false;
  const at::Tensor full = additive_energy(in.query, in.keys, in.v);
  const at::Tensor expected = full.masked_fill(mask.logical_not(), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(at::equal(additive_energy(in.query, in.keys, in.v, at::Tensor(), mask), expected));
  const Inputs tracked = make_inputs(3, 7, 32, at::kFloat, true);
  const at::Tensor with_grad = additive_energy(tracked.query, tracked.keys, tracked.v, at::Tensor(), mask);
  EXPECT_TRUE(at::equal(with_grad.detach(), expected));
  with_grad.masked_select(mask).sum().backward();  // masked positions pass no gradient
  EXPECT_TRUE(tracked.keys.grad()[0].slice(0, 4).eq(0).all().item<bool>());
  EXPECT_THROW(additive_energy(in.query, in.keys, in.v, at::Tensor(), mask.slice(1, 0, 6)), c10::Error);
}

TEST(AdditiveEnergy, AcceptsNonContiguousInputs) {
  const Inputs in = make_inputs(3, 6, 32, at::kFloat, false);
  const at::Tensor keys_t = in.keys.transpose(0, 1).contiguous().transpose(0, 1);  // same values, other strides
  ASSERT_FALSE(keys_t.is_contiguous());
  EXPECT_TRUE(at::equal(additive_energy(in.query, keys_t, in.v), additive_energy(in.query, in.keys, in.v)));
}

TEST(AdditiveEnergy, NaNStaysInItsRow) {
  Inputs in = make_inputs(3, 4, 20, at::kFloat, false);
  in.keys[1][2][5] = std::numeric_limits<float>::quiet_NaN();
  const at::Tensor e = additive_energy(in.query, in.keys, in.v);
  EXPECT_TRUE(std::isnan(e[1][2].item<float>()));
  EXPECT_EQ(at::isnan(e).sum().item<std::int64_t>(), 1);
}

TEST(AdditiveEnergy, RejectsMismatchedShapesNamingThem) {
  const Inputs in = make_inputs(3, 4, 20, at::kFloat, false);
  try {
    additive_energy(in.query, in.keys.slice(2, 0, 10), in.v);
    FAIL() << "no error";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("additive_energy: shapes do not match"), std::string::npos) << e.what();
  }
  EXPECT_THROW(additive_energy(in.query[0], in.keys, in.v), c10::Error);
}

// The context kernel (search): c[r] = sum_j w[r, j] m[rows[r], j, :], read through a row index, with
// positions of zero weight skipped. Rows with 1 to 11 non-zero weights run every grouping of its
// four-positions-per-pass loop; a width of 1029 runs its tail.
TEST(WeightedContext, MatchesADoubleSumReadsThroughTheRowIndexAndSkipsZeroWeights) {
  c10::NoGradGuard no_grad;
  at::manual_seed(11);
  const std::int64_t sources = 3, src_len = 12, width = 1029, rows = 11;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  at::Tensor memory = at::randn({sources, src_len, width});
  at::Tensor weights = at::rand({rows, src_len}) + 0.1;
  for (std::int64_t r = 0; r < rows; ++r) weights[r].slice(0, r + 1).zero_();  // r + 1 real positions
  weights[4][2] = 0.0f;                                                      // and a hole
  weights = weights / weights.sum(1, /*keepdim=*/true);
  const at::Tensor index = at::tensor({2, 0, 1, 0, 2, 0, 1, 1, 0, 1, 1}, at::kLong);
  const at::Tensor expected = (weights.to(at::kDouble).unsqueeze(2) * memory.index_select(0, index).to(at::kDouble)).sum(1);
  memory.select(1, 11).fill_(nan);  // no row has a weight there
  memory[2][2].fill_(nan);          // only row 4 reads source 2 there, at its hole

  const at::Tensor context = weighted_context(weights, memory, index);
  ASSERT_EQ(context.sizes(), (std::vector<std::int64_t>{rows, width}));
  EXPECT_FALSE(at::isnan(context).any().item<bool>()) << "a position of zero weight was read";
  for (std::int64_t r = 0; r < rows; ++r) {
    EXPECT_LT(max_abs_diff(context[r].to(at::kDouble), expected[r]), 1e-5) << "row " << r;
    // Alone: the batch never changes a row's bits.
    const at::Tensor alone = weighted_context(weights.slice(0, r, r + 1), memory, index.slice(0, r, r + 1));
    EXPECT_TRUE(at::equal(alone[0], context[r])) << "row " << r;
  }
  EXPECT_THROW(weighted_context(weights, memory, index.slice(0, 0, 5)), c10::Error);
}

// The dot-score kernel (search, Luong dot and general): e[r, j] = q[r] . k[rows[r], j], read through
// a row index. A position's score must not depend on the other positions (its bits equal those of
// the same keys cut to that one position: a kernel that groups positions must keep each one's sum
// order) nor a row's on the batch. Widths 37 and 270 run the lanes' tail.
TEST(DotScores, EachPositionHasItsBitsAloneMatchesADoubleSumAndReadsThroughTheRowIndex) {
  c10::NoGradGuard no_grad;
  for (const std::int64_t width : {16, 37, 256, 270}) {
    at::manual_seed(13);
    const std::int64_t sources = 3, src_len = 9, rows = 5;
    const at::Tensor keys = at::randn({sources, src_len, width});
    const at::Tensor query = at::randn({rows, width});
    const at::Tensor index = at::tensor({2, 0, 1, 2, 0}, at::kLong);
    const at::Tensor scores = dot_scores(query, keys, index);
    ASSERT_EQ(scores.sizes(), (std::vector<std::int64_t>{rows, src_len}));
    const at::Tensor expected =
        (keys.index_select(0, index).to(at::kDouble) * query.to(at::kDouble).unsqueeze(1)).sum(-1);
    EXPECT_LT(max_abs_diff(scores.to(at::kDouble), expected), 1e-4) << "width " << width;
    for (std::int64_t j = 0; j < src_len; ++j) {
      const at::Tensor one = dot_scores(query, keys.slice(1, j, j + 1).contiguous(), index);
      EXPECT_TRUE(at::equal(one.select(1, 0), scores.select(1, j))) << "width " << width << ", position " << j;
    }
    for (std::int64_t r = 0; r < rows; ++r) {
      const at::Tensor alone = dot_scores(query.slice(0, r, r + 1), keys, index.slice(0, r, r + 1));
      EXPECT_TRUE(at::equal(alone[0], scores[r])) << "width " << width << ", row " << r;
    }
  }
}

// With a mask (search's padding), masked positions are -inf whatever the keys hold there (NaN
// here), a row with no real position is all -inf, and every real position keeps the unmasked
// call's bits (a row read through the index by its own mask row, not its source's; a hole inside a
// row; the last real position before the padding). Autograd's path (the elementwise sum) masks the
// same positions. (Whether the padding is skipped or computed and overwritten, the scores are the
// same: that the kernel skips it is a matter of speed, docs/benchmarks.md.)
TEST(DotScores, MasksPaddingWithoutScoringItAndKeepsTheRealPositionsBits) {
  c10::NoGradGuard no_grad;
  at::manual_seed(17);
  const std::int64_t sources = 2, src_len = 7, width = 40, rows = 5;
  at::Tensor keys = at::randn({sources, src_len, width});
  const at::Tensor query = at::randn({rows, width});
  const at::Tensor index = at::tensor({0, 1, 1, 0, 1}, at::kLong);
  at::Tensor mask = at::ones({rows, src_len}, at::kBool);
  mask[0].slice(0, 5).fill_(false);  // rows 0 and 3 read source 0, whose positions 5 and 6 are padding
  mask[3].slice(0, 5).fill_(false);
  mask[1].slice(0, 3).fill_(false);  // row 1: all but its first three positions
  mask[2][4] = false;                // row 2: a hole, not padding
  mask[4].fill_(false);              // row 4: nothing real
  const at::Tensor plain = dot_scores(query, keys, index);
  keys[0].slice(0, 5).fill_(std::numeric_limits<float>::quiet_NaN());
  const at::Tensor scores = dot_scores(query, keys, index, mask);
  const float minus_infinity = -std::numeric_limits<float>::infinity();
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t j = 0; j < src_len; ++j) {
      const float got = scores[r][j].item<float>();
      if (mask[r][j].item<bool>()) {
        EXPECT_EQ(got, plain[r][j].item<float>()) << "row " << r << ", position " << j;
      } else {
        EXPECT_EQ(got, minus_infinity) << "row " << r << ", position " << j;
      }
    }
  }
  EXPECT_THROW(dot_scores(query, keys, index, mask.slice(1, 0, 3)), c10::Error);
  c10::AutoGradMode grad(true);
  const at::Tensor autograd = dot_scores(query.clone().requires_grad_(true), keys, index, mask);
  ASSERT_TRUE(autograd.requires_grad());
  const at::Tensor real = mask, padded = mask.logical_not();
  EXPECT_TRUE(at::all(autograd.masked_select(padded) == minus_infinity).item<bool>());
  EXPECT_LT((autograd.masked_select(real) - scores.masked_select(real)).abs().max().item<float>(), 1e-4f);
}

TEST(FastSigmoid, IsWithin2e7RelativeOfTheSigmoidEverywhere) {
  std::vector<float> xs = {0.0f, 1e-30f, 1e-8f, 86.9f, 87.0f};
  for (int i = -300000; i <= 300000; ++i) xs.push_back(static_cast<float>(i) * 1e-4f);  // [-30, 30]
  for (const float x : xs) {
    for (const float s : {x, -x}) {
      const double expected = 1.0 / (1.0 + std::exp(-static_cast<double>(s)));
      ASSERT_LT(std::abs(fast_sigmoid(s) - expected), 2e-7 * expected) << "x = " << s;
    }
  }
  // Below -87 the exp's clamp holds sigmoid at about exp(-87): absolutely tiny, not relatively.
  for (const float x : {-87.1f, -100.0f, -1e30f}) EXPECT_LT(fast_sigmoid(x), 2e-38f) << x;
  for (const float x : {87.1f, 100.0f, 1e30f}) EXPECT_EQ(fast_sigmoid(x), 1.0f) << x;
  EXPECT_EQ(fast_sigmoid(0.0f), 0.5f);
  EXPECT_EQ(fast_sigmoid(std::numeric_limits<float>::infinity()), 1.0f);
  EXPECT_LT(fast_sigmoid(-std::numeric_limits<float>::infinity()), 1e-37f);
  EXPECT_TRUE(std::isnan(fast_sigmoid(std::numeric_limits<float>::quiet_NaN())));
}

// PyTorch's GRU cell written with ATen, as gru_cell() computes it off the kernels.
at::Tensor aten_gru_cell(const at::Tensor& i, const at::Tensor& g, const at::Tensor& h) {
  const auto ic = i.chunk(3, 1), gc = g.chunk(3, 1);
  const at::Tensor r = at::sigmoid(ic[0] + gc[0]), z = at::sigmoid(ic[1] + gc[1]);
  const at::Tensor n = at::tanh(ic[2] + r * gc[2]);
  return (h - n) * z + n;
}

// D = 5 and 17 take the loops' tails, 16 and 48 none; the gates are a strided time step of a
// [rows, steps, 3D] tensor, as the encoder passes them.
TEST(GruCellRows, MatchesATenAndEveryRowIsTheSameAloneAsInAnyBatch) {
  c10::NoGradGuard no_grad;
  at::manual_seed(12);
  for (const auto dtype : {at::kFloat, at::kDouble}) {
    for (const std::int64_t size : {5, 16, 17, 48}) {
      const at::Tensor sequence = 3 * at::randn({9, 4, 3 * size}, dtype);
      const at::Tensor input_gates = sequence.select(1, 2);
      ASSERT_FALSE(input_gates.is_contiguous());
      const at::Tensor hidden_gates = 3 * at::randn({9, 3 * size}, dtype), h = at::randn({9, size}, dtype);
      const at::Tensor got = gru_cell_rows(input_gates, hidden_gates, h);
      const double tolerance = dtype == at::kFloat ? 1e-6 : 1e-14;
      EXPECT_LT(max_abs_diff(got, aten_gru_cell(input_gates, hidden_gates, h)), tolerance) << dtype << " " << size;
      for (const std::int64_t rows : {1, 2, 3, 8}) {
        for (std::int64_t first = 0; first + rows <= 9; first += rows) {
          const at::Tensor part = gru_cell_rows(input_gates.slice(0, first, first + rows),
                                                hidden_gates.slice(0, first, first + rows), h.slice(0, first, first + rows));
          EXPECT_TRUE(at::equal(part, got.slice(0, first, first + rows))) << "rows " << first << "+" << rows << ", D " << size;
        }
      }
    }
  }
  EXPECT_THROW(gru_cell_rows(at::randn({2, 9}), at::randn({2, 9}), at::randn({2, 4})), c10::Error);
}

TEST(TanhRows, MatchesATenKeepsRowsIndependentAndLeavesAutogradToATen) {
  at::manual_seed(13);
  for (const std::int64_t size : {5, 16, 1029}) {
    const at::Tensor x = 3 * at::randn({7, size});
    const at::Tensor got = tanh_rows(x);
    EXPECT_LT(max_abs_diff(got, at::tanh(x)), 1.4e-7) << size;
    for (std::int64_t r = 0; r < 7; ++r) EXPECT_TRUE(at::equal(tanh_rows(x.slice(0, r, r + 1))[0], got[r])) << r;
  }
  const at::Tensor d = at::randn({3, 4}, at::kDouble);
  EXPECT_LT(max_abs_diff(tanh_rows(d), at::tanh(d)), 1e-15);
  const at::Tensor tracked = at::randn({2, 9}).requires_grad_(true);
  tanh_rows(tracked * 1).sum().backward();
  EXPECT_TRUE(tracked.grad().defined());
}

// The attention's softmax: masked (-inf) positions are exactly 0, each row sums to 1, and a
// sentence's weights are the same bits whatever padding its batch adds after its real positions.
TEST(SoftmaxLast, MasksExactlyAndDoesNotDependOnThePaddedWidth) {
  c10::NoGradGuard no_grad;
  at::manual_seed(14);
  const float minus_infinity = -std::numeric_limits<float>::infinity();
  for (const auto dtype : {at::kFloat, at::kDouble}) {
    for (const std::int64_t real : {1, 5, 16, 21, 40}) {
      const at::Tensor scores = 5 * at::randn({3, real}, dtype);
      at::Tensor reference;
      for (const std::int64_t width : {real, real + 3, (real + 15) / 16 * 16, std::int64_t{64}}) {
        at::Tensor padded = at::full({3, width}, minus_infinity, scores.options());
        padded.slice(1, 0, real).copy_(scores);
        if (real > 1) padded[1][0] = minus_infinity;  // a hole inside the real positions too
        const at::Tensor weights = softmax_last(padded);
        const at::Tensor expected = padded.softmax(-1);
        EXPECT_LT(max_abs_diff(weights, expected), dtype == at::kFloat ? 1e-6 : 1e-14) << real << " in " << width;
        EXPECT_TRUE(weights.slice(1, real).eq(0).all().item<bool>());
        if (real > 1) {
          EXPECT_EQ(weights[1][0].item<double>(), 0.0);
        }
        EXPECT_NEAR(weights.sum(1)[0].item<double>(), 1.0, 1e-6);
        if (!reference.defined()) {
          reference = weights.slice(1, 0, real).clone();
        } else {
          EXPECT_TRUE(at::equal(weights.slice(1, 0, real), reference)) << dtype << ": " << real << " real positions in " << width;
        }
      }
    }
  }
  at::Tensor special = at::randn({3, 8});
  special[0][3] = std::numeric_limits<float>::quiet_NaN();
  special[1].fill_(minus_infinity);
  const at::Tensor weights = softmax_last(special);
  EXPECT_TRUE(at::isnan(weights[0]).all().item<bool>()) << "NaN anywhere in a row: NaN everywhere, as ATen";
  EXPECT_TRUE(at::isnan(weights[1]).all().item<bool>()) << "nothing to attend to: NaN, as ATen";
  EXPECT_LT(max_abs_diff(weights[2], special[2].softmax(-1)), 1e-6);
}

// NMT_CPU_CAPABILITY only lowers what the CPU has, and a value it does not know is refused by name.
TEST(CpuCapability, CapsTheDetectedFeaturesAndRefusesUnknownNames) {
  const CpuFeatures all{true, true, true, true}, avx2_only{true, false, false, false};
  for (const char* none : {static_cast<const char*>(nullptr), "", "avx512"}) {
    const CpuFeatures f = capped_cpu_features(all, none);
    EXPECT_TRUE(f.avx2_fma && f.avx512f && f.avx512bw && f.avx512vnni) << (none != nullptr ? none : "null");
  }
  EXPECT_FALSE(capped_cpu_features(avx2_only, "avx512").avx512f);  // a ceiling, never more
  EXPECT_FALSE(capped_cpu_features(avx2_only, "avx512bw").avx512bw);
  const CpuFeatures bw = capped_cpu_features(all, "avx512bw");  // AVX-512 without VNNI
  EXPECT_TRUE(bw.avx2_fma && bw.avx512f && bw.avx512bw);
  EXPECT_FALSE(bw.avx512vnni);
  const CpuFeatures avx2 = capped_cpu_features(all, "avx2");
  EXPECT_TRUE(avx2.avx2_fma);
  EXPECT_FALSE(avx2.avx512f || avx2.avx512bw || avx2.avx512vnni);
  const CpuFeatures portable = capped_cpu_features(all, "portable");
  EXPECT_FALSE(portable.avx2_fma || portable.avx512f || portable.avx512bw || portable.avx512vnni);
  try {
    capped_cpu_features(all, "AVX2");
    ADD_FAILURE() << "an unknown capability was accepted";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "NMT_CPU_CAPABILITY: 'AVX2' is not one of avx512, avx512bw, avx2, portable");
  }
  try {  // one short line whatever the value holds
    capped_cpu_features(all, (std::string("avx2\n") + std::string(100, 'x')).c_str());
    ADD_FAILURE() << "an unknown capability was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    EXPECT_LT(std::string(e.what()).size(), 160u) << e.what();
  }
}

}  // namespace
}  // namespace nmt
