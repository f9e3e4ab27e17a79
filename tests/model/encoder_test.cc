// encode_bidirectional's walk: the one-pass join of the two directions (CPU, no gradients) gives
// the tensor expression's bits (autograd, other devices), padding zero, finals the same. (A
// sentence alone against the batch: InferenceEncoderGivesTheTrainableEncodersBits, with the kernels.)
#include "nmt/model/encoder.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <vector>

namespace nmt {
namespace {

// A recurrence of plain tensor operations, the same bits with and without autograd:
// h_t = tanh(x_t A + h_{t-1} B) with A, B per layer and direction.
struct ToyDirections {
  std::vector<at::Tensor> a, b;  // [layer * 2 + reverse]
  ToyDirections(std::int64_t layers, std::int64_t in, std::int64_t hidden) {
    for (std::int64_t l = 0; l < layers; ++l) {
      for (int r = 0; r < 2; ++r) {
        a.push_back(at::randn({l == 0 ? in : 2 * hidden, hidden}, at::kDouble));
        b.push_back(at::randn({hidden, hidden}, at::kDouble) * 0.5);
      }
    }
  }
  at::Tensor operator()(std::int64_t layer, bool reverse, const at::Tensor& x) const {
    const auto i = static_cast<std::size_t>(layer * 2 + (reverse ? 1 : 0));
    at::Tensor h = at::zeros({x.size(0), b[i].size(0)}, x.options());
    std::vector<at::Tensor> states;
    for (std::int64_t t = 0; t < x.size(1); ++t) {
      h = at::tanh(at::matmul(x.select(1, t), a[i]) + at::matmul(h, b[i]));
      states.push_back(h);
    }
    return at::stack(states, 1);
  }
};

// Bit for bit, signed zeros and NaN payloads included (at::equal compares values: -0 == +0).
bool same_bits(const at::Tensor& a, const at::Tensor& b) {
  return a.sizes() == b.sizes() && at::equal(a.contiguous().view(at::kLong), b.contiguous().view(at::kLong));
}

TEST(EncodeBidirectional, OnePassJoinGivesTheTensorExpressionsBits) {
  at::manual_seed(11);
  const at::Tensor lengths = at::tensor({5L, 1L, 7L, 3L, 7L});
  for (const std::int64_t layers : {1L, 3L}) {
    SCOPED_TRACE(layers);
    const ToyDirections toy(layers, 4, 6);
    const DirectionRunner run = [&](std::int64_t l, bool r, const at::Tensor& x) { return toy(l, r, x); };
    // Padding that is not zero: neither path may let it reach a real position.
    const at::Tensor embedded = at::randn({5, 7, 4}, at::kDouble);

    const at::Tensor tracked = embedded.clone().requires_grad_(true);  // the tensor expression
    const EncoderOutput expression = encode_bidirectional(tracked, lengths, layers, 0.0, false, run);
    ASSERT_TRUE(expression.memory.requires_grad());
    at::NoGradGuard no_grad;  // the one-pass join
    const EncoderOutput joined = encode_bidirectional(embedded, lengths, layers, 0.0, false, run);
    ASSERT_FALSE(joined.memory.requires_grad());

    EXPECT_TRUE(same_bits(joined.memory, expression.memory.detach()));
    EXPECT_TRUE(same_bits(joined.final_states, expression.final_states.detach()));
    // The padding's zeros are signed as the mask's product signs them: some are -0 here, so a join
    // that wrote +0 there would fail the comparison above.
    const at::Tensor top_padding = expression.memory.detach().masked_select(
        at::arange(7).unsqueeze(0).ge(lengths.unsqueeze(1)).unsqueeze(2).expand({5, 7, 12}));
    EXPECT_TRUE(at::signbit(top_padding).any().item<bool>());
    for (std::int64_t row = 0; row < 5; ++row) {
      const std::int64_t n = lengths[row].item<std::int64_t>();
      const at::Tensor padding = joined.memory[row].slice(0, n);
      EXPECT_TRUE(at::equal(padding, at::zeros_like(padding))) << "row " << row;
      // Each direction's final state: the forward one's last real position, the backward one's first.
      const at::Tensor top = joined.memory[row];
      EXPECT_TRUE(at::equal(joined.final_states[2 * layers - 2][row], top[n - 1].slice(0, 0, 6)));
      EXPECT_TRUE(at::equal(joined.final_states[2 * layers - 1][row], top[0].slice(0, 6, 12)));
    }
  }
}

}  // namespace
}  // namespace nmt
