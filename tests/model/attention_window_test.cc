// Local attention (nmt/model/attention_window.h): weights worked by hand, the window's exact zeros,
// the centres of local-m, local-p and local-p-offset, padding and batch invariance bit for bit, the
// position networks against finite differences, local-p-offset starting as local-m, and where the
// window is stored in a model's config.
#include "nmt/model/attention_window.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/autograd.h>

#include <cmath>
#include <limits>
#include <vector>

#include "nmt/core/error.h"
#include "nmt/model/attention.h"
#include "nmt/model/seq2seq.h"
#include "tests/model/model_test_util.h"
#include "tests/test_util.h"

// A namespace of its own: the unity build puts this file in one unit with others.
namespace nmt::attention_window_test {
namespace {

const double kInf = std::numeric_limits<double>::infinity();

at::Tensor row(std::vector<double> values) { return at::tensor(values, at::kDouble).unsqueeze(0); }

// Scores 0..5, centre 2, W = 1: the window is positions 1..3, sigma = 1/2, so the Gaussian is
// exp(-2 d^2): e^-2 at 1 and 3, 1 at 2. softmax over the window times it, renormalised:
// [e^1 e^-2, e^2, e^3 e^-2] / Z = [e^-1, e^2, e^1] / (e^-1 + e^2 + e^1).
TEST(LocalAttention, ValuesWorkedByHand) {
  const at::Tensor a = local_attention_weights(row({0, 1, 2, 3, 4, 5}), at::tensor({2.0}, at::kDouble), 1,
                                               AttentionNormaliser::softmax);
  const double z = std::exp(-1.0) + std::exp(2.0) + std::exp(1.0);
  const std::vector<double> expected = {0, std::exp(-1.0) / z, std::exp(2.0) / z, std::exp(1.0) / z, 0, 0};
  for (std::size_t j = 0; j < expected.size(); ++j) {
    EXPECT_NEAR(a[0][static_cast<std::int64_t>(j)].item<double>(), expected[j], 1e-12) << j;
  }
  EXPECT_EQ(a[0][0].item<double>(), 0.0);  // exactly, outside the window
  EXPECT_EQ(a[0][4].item<double>(), 0.0);

  // A centre between positions: 2.5 with W = 1 holds 2 and 3 (|d| = 0.5), not 1 or 4 (1.5).
  // Equal scores: the Gaussian's equal values at equal distances give a half each.
  const at::Tensor between = local_attention_weights(row({7, 7, 7, 7, 7, 7}), at::tensor({2.5}, at::kDouble), 1,
                                                     AttentionNormaliser::softmax);
  EXPECT_NEAR(between[0][2].item<double>(), 0.5, 1e-12);
  EXPECT_NEAR(between[0][3].item<double>(), 0.5, 1e-12);
  EXPECT_EQ(at::count_nonzero(between).item<std::int64_t>(), 2);

  // sparsemax inside the window: scores [1, 2, 3] at positions 1..3 give sparsemax [0, 0, 1]
  // (1 + 2 * 2 > 5 fails): all the weight at position 3, whatever the Gaussian.
  const at::Tensor sparse = local_attention_weights(row({0, 1, 2, 3, 4, 5}), at::tensor({2.0}, at::kDouble), 1,
                                                    AttentionNormaliser::sparsemax);
  EXPECT_EQ(sparse[0][3].item<double>(), 1.0);
  EXPECT_EQ(at::count_nonzero(sparse).item<std::int64_t>(), 1);
}

TEST(LocalAttention, CentresOfLocalMLocalPAndLocalPOffset) {
  const at::Tensor lengths = at::tensor({3, 10, 1}, at::kLong);
  const at::Tensor like = at::zeros({1}, at::kFloat);
  // local-m: p_t = min(t, n - 1).
  EXPECT_TRUE(at::equal(monotonic_centres(0, lengths, like), at::tensor({0.0f, 0.0f, 0.0f})));
  EXPECT_TRUE(at::equal(monotonic_centres(4, lengths, like), at::tensor({2.0f, 4.0f, 0.0f})));
  // local-p: (n - 1) sigmoid(energy); energy 0 is the middle, large energies the ends.
  const at::Tensor energy = at::tensor({0.0f, 40.0f, -3.0f}).unsqueeze(1);
  const at::Tensor p = predicted_centres(energy, lengths);
  EXPECT_FLOAT_EQ(p[0].item<float>(), 1.0f);
  EXPECT_FLOAT_EQ(p[1].item<float>(), 9.0f);
  EXPECT_FLOAT_EQ(p[2].item<float>(), 0.0f);
  // local-p-offset: min(t, n - 1) + W tanh(energy), W = 2: at step 4 the monotonic centres are
  // 2, 4 and 0; energy 0 keeps them, 40 moves by +W, -3 by 2 tanh(-3) = -1.990 (past the start).
  const at::Tensor o = offset_centres(4, lengths, energy, 2);
  EXPECT_FLOAT_EQ(o[0].item<float>(), 2.0f);
  EXPECT_FLOAT_EQ(o[1].item<float>(), 6.0f);
  EXPECT_FLOAT_EQ(o[2].item<float>(), 2 * std::tanh(-3.0f));
  // A centre past the start still has its monotonic centre, position 0, inside the window.
  const at::Tensor a = local_attention_weights(row({1.5, -kInf}), o.slice(0, 2, 3).to(at::kDouble), 2,
                                               AttentionNormaliser::softmax);
  EXPECT_EQ(a[0][0].item<double>(), 1.0);
  EXPECT_EQ(a[0][1].item<double>(), 0.0);
}

// local-p-offset starts as local-m: a new model's v_p is 0 (its W_p is not), and with v_p = 0 the
// offset is 0 and the weights are local-m's, bit for bit, at every step (one past the shortest
// row's end included).
TEST(LocalAttention, LocalPOffsetStartsAsLocalM) {
  ModelConfig model_config = test::tiny_config(AttentionType::general, DecoderStyle::luong);
  model_config.attention_window = AttentionWindow::local_p_offset;
  const auto parameters = Seq2Seq(model_config)->named_parameters();
  EXPECT_EQ(at::count_nonzero(parameters["decoder.attention.position_energy.weight"]).item<std::int64_t>(), 0);
  EXPECT_GT(at::count_nonzero(parameters["decoder.attention.position_layer.weight"]).item<std::int64_t>(), 0);

  ModelConfig config = test::tiny_config(AttentionType::general, DecoderStyle::luong);
  config.attention_window_size = 2;
  config.attention_window = AttentionWindow::local_m;
  at::manual_seed(3);
  auto monotonic = make_attention(config);
  config.attention_window = AttentionWindow::local_p_offset;
  auto offset = make_attention(config);
  {
    torch::NoGradGuard no_grad;
    for (auto& p : offset->named_parameters()) {
      if (p.key() == "position_energy.weight") {
        p.value().zero_();
      } else if (p.key() != "position_layer.weight") {
        p.value().copy_(monotonic->named_parameters()[p.key()]);
      }
    }
  }
  const at::Tensor lengths = at::tensor({6, 3}, at::kLong);
  const at::Tensor mask = at::arange(6).unsqueeze(0) < lengths.unsqueeze(1);
  const at::Tensor memory = at::randn({2, 6, 2 * config.encoder_hidden_size}) * mask.unsqueeze(-1);
  const at::Tensor query = at::randn({2, config.decoder_hidden_size});
  for (std::int64_t step = 0; step < 5; ++step) {
    const auto m = monotonic->forward(query, monotonic->precompute_keys(memory), memory, mask, step);
    const auto o = offset->forward(query, offset->precompute_keys(memory), memory, mask, step);
    EXPECT_TRUE(at::equal(m.weights, o.weights)) << "step " << step;
  }
}

// Random scores of rows with 9, 4 and 1 real positions, windows at assorted centres: every row sums
// to 1, is exactly 0 outside its window and at its padding, and holds the same bits alone and
// without padding as in the batch, for every normaliser.
TEST(LocalAttention, SumsToOneZerosOutsideAndPaddingAndBatchInvarianceBitForBit) {
  at::manual_seed(5);
  const std::vector<std::int64_t> lengths = {9, 4, 1};
  const at::Tensor mask = at::arange(9).unsqueeze(0) < at::tensor(lengths, at::kLong).unsqueeze(1);
  const at::Tensor scores = at::randn({3, 9}, at::kFloat).masked_fill(mask.logical_not(), -kInf);
  const at::Tensor centres = at::tensor({6.3f, 1.5f, 0.0f});
  for (const auto normaliser :
       {AttentionNormaliser::softmax, AttentionNormaliser::sparsemax, AttentionNormaliser::entmax15}) {
    SCOPED_TRACE(name_of(normaliser));
    const at::Tensor a = local_attention_weights(scores, centres, 2, normaliser);
    EXPECT_TRUE(at::allclose(a.sum(-1), at::ones({3}), 1e-6, 1e-6));
    const at::Tensor distance = (at::arange(9, at::kFloat).unsqueeze(0) - centres.unsqueeze(1)).abs();
    EXPECT_TRUE(at::all(a.masked_select(distance > 2) == 0).item<bool>());
    EXPECT_TRUE(at::all(a.masked_select(mask.logical_not()) == 0).item<bool>());
    for (std::int64_t r = 0; r < 3; ++r) {
      const at::Tensor alone = local_attention_weights(scores[r].slice(0, 0, lengths[r]).unsqueeze(0),
                                                       centres.slice(0, r, r + 1), 2, normaliser);
      EXPECT_TRUE(at::equal(alone[0], a[r].slice(0, 0, lengths[r]))) << "row " << r;
    }
  }
}

// local-p's and local-p-offset's gradients through the Gaussian to their position network (W_p,
// v_p), the query and the score's parameters, against central finite differences in double
// precision, for softmax and sparsemax. Centres stay away from the window's edges at this seed (the
// edges are not differentiable).
TEST(LocalAttention, LearntCentresGradientsMatchFiniteDifferences) {
  const std::vector<std::pair<AttentionWindow, AttentionNormaliser>> kinds = {
      {AttentionWindow::local_p, AttentionNormaliser::softmax},
      {AttentionWindow::local_p, AttentionNormaliser::sparsemax},
      {AttentionWindow::local_p_offset, AttentionNormaliser::softmax},
      {AttentionWindow::local_p_offset, AttentionNormaliser::sparsemax}};
  for (const auto& [window, normaliser] : kinds) {
    SCOPED_TRACE(name_of(window) + " " + name_of(normaliser));
    ModelConfig config = test::tiny_config(AttentionType::general, DecoderStyle::luong);
    config.attention_normaliser = normaliser;
    config.attention_window = window;
    config.attention_window_size = 2;
    at::manual_seed(11);
    auto attention = make_attention(config);
    attention->to(at::kDouble);
    const at::Tensor lengths = at::tensor({7, 3, 5}, at::kLong);
    const at::Tensor mask = at::arange(7).unsqueeze(0) < lengths.unsqueeze(1);
    const at::Tensor memory = at::randn({3, 7, 2 * config.encoder_hidden_size}, at::kDouble) * mask.unsqueeze(-1);
    // Small queries: flat scores, so that sparsemax keeps several positions and the centre matters.
    const at::Tensor query = (at::randn({3, config.decoder_hidden_size}, at::kDouble) * 0.2).requires_grad_(true);
    const at::Tensor probe = at::randn({3, 7}, at::kDouble);
    const at::Tensor context_probe = at::randn({3, 2 * config.encoder_hidden_size}, at::kDouble);
    const auto loss_fn = [&] {
      const auto out = attention->forward(query, attention->precompute_keys(memory), memory, mask, /*step=*/2);
      return (out.weights * probe).sum() + (out.context * context_probe).sum();
    };
    std::vector<std::pair<std::string, at::Tensor>> checked = {{"query", query}};
    for (const auto& p : attention->named_parameters()) checked.emplace_back(p.key(), p.value());
    const auto grads = test::expect_gradients_match_finite_differences(loss_fn, checked, 30);
    // The position network does get a gradient (the Gaussian carries it).
    EXPECT_GT(grads.back().abs().sum().item<double>(), 0) << checked.back().first;
  }
}

TEST(LocalAttention, LearntCentresRegisterTheirPositionNetworkUnderDocumentedNames) {
  ModelConfig config = test::tiny_config(AttentionType::bahdanau, DecoderStyle::bahdanau);
  for (const auto window : {AttentionWindow::local_p, AttentionWindow::local_p_offset}) {
    config.attention_window = window;
    std::vector<std::string> names;
    for (const auto& p : make_attention(config)->named_parameters()) names.push_back(p.key());
    EXPECT_EQ(names, (std::vector<std::string>{"query_layer.weight", "key_layer.weight", "energy_layer.weight",
                                               "position_layer.weight", "position_energy.weight"}))
        << name_of(window);
  }
  config.attention_window = AttentionWindow::local_m;  // nothing to learn: p_t = t
  EXPECT_EQ(make_attention(config)->named_parameters().size(), 3u);
}

// The window is written only when it is not global, with its size: a global model's config reads
// as before, and a config without it, every older checkpoint's, is global.
TEST(LocalAttention, WindowIsStoredOnlyWhenLocalAndValidated) {
  ModelConfig c = test::tiny_config(AttentionType::general, DecoderStyle::luong, 1);
  EXPECT_EQ(c.to_json().find("attention_window"), std::string::npos);
  EXPECT_EQ(ModelConfig::from_json(c.to_json()).attention_window, AttentionWindow::global);
  for (const auto window : {AttentionWindow::local_m, AttentionWindow::local_p_offset, AttentionWindow::local_p}) {
    c.attention_window = window;
    c.attention_window_size = 7;
    EXPECT_NE(c.to_json().find("\"attention_window\":\"" + name_of(window) + "\",\"attention_window_size\":7"),
              std::string::npos);
    EXPECT_EQ(ModelConfig::from_json(c.to_json()), c);
  }
  c.attention_window = AttentionWindow::local_p;
  std::string bad = c.to_json();
  bad.replace(bad.find("\"local-p\""), 9, "\"local-q\"");
  EXPECT_THROW_WITH(ModelConfig::from_json(bad), DataError, "unknown attention window 'local-q'");
  std::string half = c.to_json();
  half.replace(half.find(",\"attention_window_size\":7"), 26, "");
  EXPECT_THROW_WITH(ModelConfig::from_json(half), DataError, "attention_window and attention_window_size go together");
  c.attention_window_size = 0;
  EXPECT_THROW_WITH(c.validate(), ConfigError, "model.attention-window-size must be in [1, 1000], got 0");
  c.attention_window_size = 10;
  c.attention = AttentionType::none;
  EXPECT_THROW_WITH(c.validate(), ConfigError, "model.attention-window local-p needs attention");
}

}  // namespace
}  // namespace nmt::attention_window_test
