#include "nmt/model/attention.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/autograd.h>

#include "tests/model/model_test_util.h"

namespace nmt {
namespace {

class AttentionScores : public ::testing::TestWithParam<AttentionType> {};

std::string attention_name(const ::testing::TestParamInfo<AttentionType>& info) { return name_of(info.param); }

// Memory with rows of lengths 5, 2 and 4 (zeros at padding, as the encoder leaves it).
struct Inputs {
  at::Tensor query, memory, mask;
};

Inputs make_inputs(const ModelConfig& config, at::ScalarType dtype) {
  at::manual_seed(11);
  const auto lengths = at::tensor({5, 2, 4}, at::kLong);
  Inputs in;
  in.mask = at::arange(5, at::kLong).unsqueeze(0) < lengths.unsqueeze(1);
  in.memory = at::randn({3, 5, 2 * config.encoder_hidden_size}, dtype) * in.mask.unsqueeze(-1);
  in.query = at::randn({3, config.decoder_hidden_size}, dtype);
  return in;
}

TEST_P(AttentionScores, MaskedWeightsAreExactlyZeroAndRowsSumToOne) {
  const ModelConfig config = test::tiny_config(GetParam(), DecoderStyle::bahdanau);
  auto attention = make_attention(config);
  const Inputs in = make_inputs(config, at::kFloat);
  const AttentionOutput out = attention->forward(in.query, attention->precompute_keys(in.memory), in.memory, in.mask);
  ASSERT_EQ(out.weights.sizes(), (std::vector<std::int64_t>{3, 5}));
  ASSERT_EQ(out.context.sizes(), (std::vector<std::int64_t>{3, 2 * config.encoder_hidden_size}));
  EXPECT_TRUE(at::all(out.weights.masked_select(in.mask.logical_not()) == 0).item<bool>());
  EXPECT_TRUE(at::all(out.weights.masked_select(in.mask) > 0).item<bool>());
  EXPECT_TRUE(at::allclose(out.weights.sum(-1), at::ones({3}), 1e-6, 1e-6));
  // The context is the weighted sum of memory rows.
  EXPECT_TRUE(at::allclose(out.context, (out.weights.unsqueeze(-1) * in.memory).sum(1), 1e-5, 1e-6));
}

TEST_P(AttentionScores, PaddingContentDoesNotMatter) {
  const ModelConfig config = test::tiny_config(GetParam(), DecoderStyle::bahdanau);
  auto attention = make_attention(config);
  const Inputs in = make_inputs(config, at::kFloat);
  const at::Tensor noisy = in.memory + at::randn_like(in.memory) * in.mask.logical_not().unsqueeze(-1) * 100;
  const auto clean = attention->forward(in.query, attention->precompute_keys(in.memory), in.memory, in.mask);
  const auto dirty = attention->forward(in.query, attention->precompute_keys(noisy), noisy, in.mask);
  EXPECT_TRUE(at::equal(clean.weights, dirty.weights));
  EXPECT_TRUE(at::allclose(clean.context, dirty.context, 0, 1e-6));
}

// Central finite differences in double precision against autograd, for the inputs and every
// parameter of the score, through the masked softmax and the context.
TEST_P(AttentionScores, GradientsMatchFiniteDifferences) {
  const ModelConfig config = test::tiny_config(GetParam(), DecoderStyle::bahdanau);
  auto attention = make_attention(config);
  attention->to(at::kDouble);
  Inputs in = make_inputs(config, at::kDouble);
  in.query.requires_grad_(true);
  in.memory.requires_grad_(true);
  const at::Tensor weight_probe = at::randn({3, 5}, at::kDouble);
  const at::Tensor context_probe = at::randn({3, 2 * config.encoder_hidden_size}, at::kDouble);
  const auto loss_fn = [&] {
    const auto out = attention->forward(in.query, attention->precompute_keys(in.memory), in.memory, in.mask);
    return (out.weights * weight_probe).sum() + (out.context * context_probe).sum();
  };
  std::vector<std::pair<std::string, at::Tensor>> checked = {{"query", in.query}, {"memory", in.memory}};
  for (const auto& p : attention->named_parameters()) checked.emplace_back(p.key(), p.value());
  test::expect_gradients_match_finite_differences(loss_fn, checked);
}

TEST_P(AttentionScores, ParameterNamesAreDocumented) {
  const ModelConfig config = test::tiny_config(GetParam(), DecoderStyle::bahdanau);
  std::vector<std::string> names;
  for (const auto& p : make_attention(config)->named_parameters()) names.push_back(p.key());
  const std::map<AttentionType, std::vector<std::string>> expected = {
      {AttentionType::bahdanau, {"query_layer.weight", "key_layer.weight", "energy_layer.weight"}},
      {AttentionType::dot, {"key_layer.weight"}},  // D = 20 != 2H = 24: a projection
      {AttentionType::general, {"key_layer.weight"}},
      {AttentionType::concat, {"concat_layer.weight", "energy_layer.weight"}}};
  EXPECT_EQ(names, expected.at(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(All, AttentionScores,
                         ::testing::Values(AttentionType::bahdanau, AttentionType::dot, AttentionType::general,
                                           AttentionType::concat),
                         attention_name);

TEST(DotAttention, HasNoParametersWhenSizesMatch) {
  DotAttention attention(/*query_size=*/8, /*memory_size=*/8);
  EXPECT_TRUE(attention.parameters().empty());
  at::manual_seed(1);
  const auto memory = at::randn({2, 3, 8});
  const auto query = at::randn({2, 8});
  const auto mask = at::ones({2, 3}, at::kBool);
  const auto out = attention.forward(query, attention.precompute_keys(memory), memory, mask);
  EXPECT_TRUE(at::allclose(out.weights, memory.bmm(query.unsqueeze(2)).squeeze(2).softmax(-1)));
}

}  // namespace
}  // namespace nmt
