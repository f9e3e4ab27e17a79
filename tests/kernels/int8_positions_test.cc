// int8 positions (kernels.h): each position's row quantized as a weight row is, and the dot scores
// and contexts that read them: a double sum's values within rounding, the bound of the quantization
// against the float tables, masks and zero weights as the float kernels treat them, and every row
// and position with its own bits whatever the batch. ctest runs this program again under
// NMT_CPU_CAPABILITY avx2 and portable (tests/CMakeLists.txt): every build of the loops.
#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "nmt/kernels/kernels.h"

// A namespace of its own: the unity build puts this file in one unit with others.
namespace nmt::int8_positions_test {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();

// The definition (int8_linear.h): s = max |x| / 127, x8 = round_half_even(x * (127 / max)) in
// [-127, 127]; a row below 127 / FLT_MAX or zero: zeros and s = 0; NaN or an infinity: s = NaN.
void expect_row_quantized(const float* x, const std::int8_t* q, float scale, std::int64_t size, const std::string& what) {
  float max = 0.0f;
  bool finite = true;
  for (std::int64_t d = 0; d < size; ++d) {
    finite = finite && std::isfinite(x[d]);
    max = std::max(max, std::fabs(x[d]));
  }
  if (!finite) {
    EXPECT_TRUE(std::isnan(scale)) << what;
    return;
  }
  if (max < 127.0f / std::numeric_limits<float>::max()) {
    EXPECT_EQ(scale, 0.0f) << what;
    for (std::int64_t d = 0; d < size; ++d) ASSERT_EQ(q[d], 0) << what << ", value " << d;
    return;
  }
  EXPECT_EQ(scale, max / 127.0f) << what;
  const float inverse = 127.0f / max;
  for (std::int64_t d = 0; d < size; ++d) {
    const float v = std::nearbyint(x[d] * inverse);  // the default rounding: to nearest, ties to even
    ASSERT_EQ(q[d], static_cast<std::int8_t>(std::min(127.0f, std::max(-127.0f, v)))) << what << ", value " << d;
  }
}

TEST(QuantizePositions, EachPositionIsQuantizedAsAWeightRowIs) {
  for (const std::int64_t width : {1, 7, 16, 37, 256, 270}) {
    at::manual_seed(31);
    at::Tensor x = 3 * at::randn({3, 6, width});
    x[0][1].zero_();                                   // a zero row
    x[0][2].fill_(1e-38f);                             // a row too small to scale
    x[1][0][0] = kNaN;                                 // NaN
    x[1][1][width - 1] = std::numeric_limits<float>::infinity();
    x[1][2].fill_(-2.0f);                              // every value the maximum
    if (width >= 3) {
      x[2][0].zero_();                                 // ties: max 127 makes the inverse 1
      x[2][0][0] = 127.0f, x[2][0][1] = 2.5f, x[2][0][2] = -3.5f;
    }
    const Int8Positions q = quantize_positions(x);
    ASSERT_EQ(q.values.sizes(), x.sizes());
    ASSERT_EQ(q.values.scalar_type(), at::kChar);
    ASSERT_EQ(q.scales.sizes(), (std::vector<std::int64_t>{3, 6}));
    for (std::int64_t n = 0; n < 3; ++n) {
      for (std::int64_t j = 0; j < 6; ++j) {
        const at::Tensor row = x[n][j].contiguous();
        expect_row_quantized(row.data_ptr<float>(), q.values[n][j].contiguous().data_ptr<std::int8_t>(),
                             q.scales[n][j].item<float>(), width,
                             "width " + std::to_string(width) + ", position " + std::to_string(n) + "/" + std::to_string(j));
      }
    }
    if (width >= 3) {
      EXPECT_EQ(q.values[2][0][1].item<std::int8_t>(), 2);
      EXPECT_EQ(q.values[2][0][2].item<std::int8_t>(), -4);
    }
    // Any strides: a transposed view gives the bytes of its contiguous copy.
    const at::Tensor strided = x.transpose(0, 1);
    const Int8Positions t = quantize_positions(strided);
    const Int8Positions c = quantize_positions(strided.contiguous());
    EXPECT_TRUE(at::equal(t.values, c.values));
    EXPECT_TRUE(at::equal(t.scales.nan_to_num(-1), c.scales.nan_to_num(-1)));
  }
  EXPECT_THROW(quantize_positions(at::randn({2, 3})), c10::Error);
  EXPECT_THROW(quantize_positions(at::randn({2, 3, 4}, at::kDouble)), c10::Error);
}

// The float table an int8 position stands for: s_j x8_j.
at::Tensor dequantized(const Int8Positions& q) { return q.values.to(at::kFloat) * q.scales.unsqueeze(-1); }

TEST(Int8Positions, DotScoresAreTheDequantizedKeysScoresAndWithinTheRoundingOfTheFloatKeys) {
  c10::NoGradGuard no_grad;
  for (const std::int64_t width : {16, 37, 256, 270}) {
    at::manual_seed(37);
    const std::int64_t sources = 3, src_len = 9, rows = 5;
    const at::Tensor keys = 2 * at::randn({sources, src_len, width});
    const at::Tensor query = at::randn({rows, width});
    const at::Tensor index = at::tensor({2, 0, 1, 2, 0}, at::kLong);
    const Int8Positions q = quantize_positions(keys);
    const at::Tensor scores = dot_scores(query, q.values, index, at::Tensor(), q.scales);
    ASSERT_EQ(scores.sizes(), (std::vector<std::int64_t>{rows, src_len}));
    const at::Tensor rows_keys = dequantized(q).index_select(0, index).to(at::kDouble);
    const at::Tensor expected = (rows_keys * query.to(at::kDouble).unsqueeze(1)).sum(-1);
    const std::string what = "width " + std::to_string(width);
    EXPECT_LT((scores.to(at::kDouble) - expected).abs().max().item<double>(), 1e-4) << what;
    // Against the float keys: each value moves by at most half its position's scale.
    const at::Tensor exact = (keys.index_select(0, index).to(at::kDouble) * query.to(at::kDouble).unsqueeze(1)).sum(-1);
    const at::Tensor bound = query.abs().sum(-1, true).to(at::kDouble) * q.scales.index_select(0, index).to(at::kDouble) / 2;
    EXPECT_TRUE(((scores.to(at::kDouble) - exact).abs() <= bound + 1e-4).all().item<bool>()) << what;
    for (std::int64_t j = 0; j < src_len; ++j) {  // a position's bits do not depend on its neighbours
      const at::Tensor one = dot_scores(query, q.values.slice(1, j, j + 1).contiguous(), index, at::Tensor(),
                                        q.scales.slice(1, j, j + 1).contiguous());
      EXPECT_TRUE(at::equal(one.select(1, 0), scores.select(1, j))) << what << ", position " << j;
    }
    for (std::int64_t r = 0; r < rows; ++r) {  // nor a row's on the batch
      const at::Tensor alone = dot_scores(query.slice(0, r, r + 1), q.values, index.slice(0, r, r + 1), at::Tensor(),
                                          q.scales);
      EXPECT_TRUE(at::equal(alone[0], scores[r])) << what << ", row " << r;
    }
  }
}

TEST(Int8Positions, DotScoresMaskPaddingWhateverItHolds) {
  c10::NoGradGuard no_grad;
  at::manual_seed(41);
  const std::int64_t sources = 2, src_len = 7, width = 40, rows = 4;
  at::Tensor keys = at::randn({sources, src_len, width});
  const at::Tensor query = at::randn({rows, width});
  const at::Tensor index = at::tensor({0, 1, 1, 0}, at::kLong);
  at::Tensor mask = at::ones({rows, src_len}, at::kBool);
  mask[0].slice(0, 5).fill_(false);  // rows 0 and 3 read source 0, whose positions 5 and 6 are padding
  mask[3].slice(0, 5).fill_(false);
  mask[2][4] = false;                // a hole
  mask[1].fill_(false);              // nothing real
  const Int8Positions clean = quantize_positions(keys);
  const at::Tensor plain = dot_scores(query, clean.values, index, at::Tensor(), clean.scales);
  keys[0].slice(0, 5).fill_(kNaN);  // the padding's scales are NaN now
  const Int8Positions q = quantize_positions(keys);
  const at::Tensor scores = dot_scores(query, q.values, index, mask, q.scales);
  const float minus_infinity = -std::numeric_limits<float>::infinity();
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t j = 0; j < src_len; ++j) {
      const float expected = mask[r][j].item<bool>() ? plain[r][j].item<float>() : minus_infinity;
      EXPECT_EQ(scores[r][j].item<float>(), expected) << "row " << r << ", position " << j;
    }
  }
  // Unmasked, a NaN position's score is NaN, as float keys holding NaN would give.
  const at::Tensor unmasked = dot_scores(query, q.values, index, at::Tensor(), q.scales);
  EXPECT_TRUE(std::isnan(unmasked[0][5].item<float>()));
  EXPECT_FALSE(std::isnan(unmasked[0][4].item<float>()));
}

TEST(Int8Positions, ContextIsTheDequantizedMemorysContextAndSkipsZeroWeights) {
  c10::NoGradGuard no_grad;
  for (const std::int64_t width : {5, 64, 1029}) {
    at::manual_seed(43);
    const std::int64_t sources = 3, src_len = 12, rows = 11;
    at::Tensor memory = at::randn({sources, src_len, width});
    at::Tensor weights = at::rand({rows, src_len}) + 0.1;
    for (std::int64_t r = 0; r < rows; ++r) weights[r].slice(0, r + 1).zero_();  // r + 1 real positions
    weights[4][2] = 0.0f;                                                      // and a hole
    weights = weights / weights.sum(1, /*keepdim=*/true);
    const at::Tensor index = at::tensor({2, 0, 1, 0, 2, 0, 1, 1, 0, 1, 1}, at::kLong);
    const Int8Positions clean = quantize_positions(memory);
    const at::Tensor expected =
        (weights.to(at::kDouble).unsqueeze(2) * dequantized(clean).index_select(0, index).to(at::kDouble)).sum(1);
    memory.select(1, 11).fill_(kNaN);  // no row has a weight there
    memory[2][2].fill_(kNaN);          // only row 4 reads source 2 there, at its hole
    const Int8Positions q = quantize_positions(memory);

    const at::Tensor context = weighted_context(weights, q.values, index, q.scales);
    ASSERT_EQ(context.sizes(), (std::vector<std::int64_t>{rows, width}));
    const std::string what = "width " + std::to_string(width);
    EXPECT_FALSE(at::isnan(context).any().item<bool>()) << what << ": a position of zero weight was read";
    for (std::int64_t r = 0; r < rows; ++r) {
      EXPECT_LT((context[r].to(at::kDouble) - expected[r]).abs().max().item<double>(), 1e-5) << what << ", row " << r;
      const at::Tensor alone = weighted_context(weights.slice(0, r, r + 1), q.values, index.slice(0, r, r + 1), q.scales);
      EXPECT_TRUE(at::equal(alone[0], context[r])) << what << ", row " << r;
    }
  }
}

TEST(Int8Positions, RefuseMissingMismatchedOrMisplacedScales) {
  c10::NoGradGuard no_grad;
  const Int8Positions q = quantize_positions(at::randn({2, 4, 8}));
  const at::Tensor query = at::randn({2, 8}), weights = at::softmax(at::randn({2, 4}), -1);
  EXPECT_THROW(dot_scores(query, q.values, at::Tensor()), c10::Error);
  EXPECT_THROW(dot_scores(query, q.values, at::Tensor(), at::Tensor(), q.scales.slice(1, 0, 3)), c10::Error);
  EXPECT_THROW(dot_scores(query.to(at::kDouble), q.values, at::Tensor(), at::Tensor(), q.scales), c10::Error);
  EXPECT_THROW(weighted_context(weights, q.values, at::Tensor()), c10::Error);
  EXPECT_THROW(weighted_context(weights, q.values, at::Tensor(), q.scales.to(at::kDouble)), c10::Error);
  EXPECT_THROW(weighted_context(weights.clone().requires_grad_(true), q.values, at::Tensor(), q.scales), c10::Error);
  // Scales belong to int8 positions only: with float keys or memory they are refused, not ignored.
  const at::Tensor keys = at::randn({2, 4, 8});
  EXPECT_THROW(dot_scores(query, keys, at::Tensor(), at::Tensor(), q.scales), c10::Error);
  EXPECT_THROW(weighted_context(weights, keys, at::Tensor(), q.scales), c10::Error);
}

}  // namespace
}  // namespace nmt::int8_positions_test
