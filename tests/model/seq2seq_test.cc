#include "nmt/model/seq2seq.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/nn/functional/loss.h>
#include <torch/optim/adam.h>

#include <numeric>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "nmt/core/error.h"
#include "nmt/data/tokenizer.h"
#include "nmt/model/inference/inference_model.h"
#include "tests/model/model_test_util.h"
#include "tests/test_util.h"

namespace nmt {
namespace {

const c10::Device kCpu(c10::kCPU);

class EveryArchitecture : public ::testing::TestWithParam<test::Architecture> {
 protected:
  ModelConfig config() const { return test::architecture_config(GetParam()); }
};

// a and b agree within the tolerances, or are both undefined (attention = none gives no weights).
::testing::AssertionResult same_attention(const at::Tensor& a, const at::Tensor& b, double rtol, double atol) {
  if (!a.defined() || !b.defined()) {
    if (a.defined() == b.defined()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "one attention is undefined, the other not";
  }
  if (at::allclose(a, b, rtol, atol)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "attention differs by " << (a - b).abs().max().item<double>();
}

std::string combination_name(const ::testing::TestParamInfo<test::Architecture>& info) {
  return test::architecture_name(info.param);
}

TEST_P(EveryArchitecture, ShapesOfBothFaces) {
  const ModelConfig c = config();
  at::manual_seed(1);
  Seq2Seq model(c);
  const Batch batch = test::varied_batch(c);
  const auto out = model->forward(batch.source, batch.source_lengths, batch.target_in);
  const std::int64_t B = batch.size(), S = batch.source.size(1), T = batch.target_in.size(1);
  EXPECT_EQ(out.logits.sizes(), (std::vector<std::int64_t>{B, T, c.target_vocab_size}));

  const auto inference = model->for_inference(kCpu);
  const DecoderStatePtr opaque = inference->encode(batch.source, batch.source_lengths);
  const InferenceState& state = as_inference_state(*opaque);
  EXPECT_EQ(state.batch_size(), B);
  EXPECT_EQ(state.memory.sizes(), (std::vector<std::int64_t>{B, S, 2 * c.encoder_hidden_size}));
  EXPECT_EQ(state.hidden.sizes(), (std::vector<std::int64_t>{c.decoder_layers, B, c.decoder_hidden_size}));
  EXPECT_EQ(state.feed.defined(), c.decoder_style == DecoderStyle::luong);
  const StepOutput step = inference->step(state, batch.target_in.select(1, 0));
  EXPECT_EQ(step.log_probs.sizes(), (std::vector<std::int64_t>{B, c.target_vocab_size}));
  EXPECT_TRUE(at::allclose(step.log_probs.exp().sum(-1), at::ones({B}), 1e-5, 1e-5));
  EXPECT_EQ(inference->has_attention(), c.has_attention());
  if (!c.has_attention()) {
    // One fixed context: no weights, no keys, and the context blocks applied to c once per sentence.
    EXPECT_FALSE(out.attention.defined());
    EXPECT_FALSE(step.attention.defined());
    EXPECT_FALSE(state.keys.defined());
    EXPECT_EQ(state.projected.dim(), 2);
    EXPECT_EQ(state.projected.size(0), B);
    return;
  }
  EXPECT_EQ(out.attention.sizes(), (std::vector<std::int64_t>{B, T, S}));
  EXPECT_EQ(step.attention.sizes(), (std::vector<std::int64_t>{B, S}));
  // Attention never looks at padding.
  const at::Tensor padding = batch.source_mask.logical_not().unsqueeze(1).expand_as(out.attention);
  EXPECT_TRUE(at::all(out.attention.masked_select(padding) == 0).item<bool>());
  EXPECT_TRUE(at::allclose(out.attention.sum(-1), at::ones({B, T}), 1e-5, 1e-5));
}

TEST_P(EveryArchitecture, SteppingReproducesTeacherForcing) {
  const ModelConfig c = config();
  at::manual_seed(2);
  Seq2Seq model(c);
  model->eval();
  const Batch batch = test::varied_batch(c);
  const auto forced = model->forward(batch.source, batch.source_lengths, batch.target_in);
  const at::Tensor forced_log_probs = forced.logits.log_softmax(-1);
  const auto inference = model->for_inference(kCpu);
  DecoderStatePtr state = inference->encode(batch.source, batch.source_lengths);
  for (std::int64_t t = 0; t < batch.target_in.size(1); ++t) {
    StepOutput step = inference->step(*state, batch.target_in.select(1, t));
    EXPECT_TRUE(at::allclose(step.log_probs, forced_log_probs.select(1, t), 1e-5, 1e-6)) << "step " << t;
    const at::Tensor forced_attention = c.has_attention() ? forced.attention.select(1, t) : at::Tensor();
    EXPECT_TRUE(same_attention(step.attention, forced_attention, 1e-5, 1e-6)) << "step " << t;
    state = std::move(step.state);
  }
}

// The inference model looks what depends only on the previous token up in a table of every target
// word and reads the context through projections of the memory (inference_decoder.h): teacher
// forcing's function to float rounding. It is a snapshot: each parameter the table reads, changed
// in place alone (as an optimizer step changes it), reaches an inference model made after the
// change, and never one made before.
TEST_P(EveryArchitecture, InferenceModelMatchesTeacherForcingAndIsASnapshot) {
  const ModelConfig c = config();
  at::manual_seed(1);
  Seq2Seq model(c);
  model->eval();
  const Batch batch = test::varied_batch(c);
  c10::NoGradGuard no_grad;
  const auto third_step = [&](const InferenceModel& inference) {
    DecoderStatePtr state = inference.encode(batch.source, batch.source_lengths);
    for (std::int64_t t = 0; t < 2; ++t) state = inference.step(*state, batch.target_in.select(1, t)).state;
    return inference.step(*state, batch.target_in.select(1, 2));
  };
  const auto expect_forced = [&](const StepOutput& step, const std::string& what) {
    const auto forced = model->forward(batch.source, batch.source_lengths, batch.target_in);
    EXPECT_TRUE(at::allclose(step.log_probs, forced.logits.select(1, 2).log_softmax(-1), 1e-5, 1e-6)) << what;
    const at::Tensor forced_attention = c.has_attention() ? forced.attention.select(1, 2) : at::Tensor();
    EXPECT_TRUE(same_attention(step.attention, forced_attention, 1e-5, 1e-6)) << what;
  };
  std::unique_ptr<InferenceModel> inference = model->for_inference(kCpu);
  StepOutput before = third_step(*inference);
  expect_forced(before, "initial parameters");

  // The tables read these (the encoder's first layer too: InferenceEncoder's gates of every piece).
  std::vector<std::string> read = {"target_embedding.weight",          "decoder.rnn.weight_ih_l0",
                                   "decoder.rnn.bias_ih_l0",           "source_embedding.weight",
                                   "encoder.rnn.weight_ih_l0_reverse", "encoder.rnn.bias_ih_l0"};
  if (c.decoder_style == DecoderStyle::bahdanau) {
    read.insert(read.end(), {"decoder.readout.weight", "decoder.readout.bias"});  // the readout's e term
  }
  auto parameters = model->named_parameters();
  for (const std::string& name : read) {
    parameters[name].add_(0.25);
    EXPECT_TRUE(at::equal(third_step(*inference).log_probs, before.log_probs)) << name << " reached an older snapshot";
    inference = model->for_inference(kCpu);
    const StepOutput updated = third_step(*inference);
    EXPECT_FALSE(at::equal(updated.log_probs, before.log_probs)) << name << ": the update did nothing";
    expect_forced(updated, name);
    before = updated;
  }
}

// The inference encoder gathers its first layer's input gates from a table of every source piece
// (inference_model.h): the trainable encoder's bits without autograd, since the product is
// row-invariant, whatever the rows around a sentence.
TEST_P(EveryArchitecture, InferenceEncoderGivesTheTrainableEncodersBits) {
  const ModelConfig c = config();
  at::manual_seed(3);
  Seq2Seq model(c);
  model->eval();
  const Batch batch = test::varied_batch(c);
  c10::NoGradGuard no_grad;
  const EncoderOutput trained =
      model->encoder().ptr()->forward(at::embedding(model->source_embedding()->weight, batch.source), batch.source_lengths);
  const auto inference = model->for_inference(kCpu);
  const DecoderStatePtr batched = inference->encode(batch.source, batch.source_lengths);
  const at::Tensor& memory = as_inference_state(*batched).memory;
  EXPECT_TRUE(at::equal(memory, trained.memory));
  // One sentence alone: its rows of the batch's memory, bit for bit.
  const std::int64_t length = batch.source_lengths[1].item<std::int64_t>();
  const DecoderStatePtr alone =
      inference->encode(batch.source.slice(0, 1, 2).slice(1, 0, length), batch.source_lengths.slice(0, 1, 2));
  EXPECT_TRUE(at::equal(as_inference_state(*alone).memory[0], memory[1].slice(0, 0, length)));
}

// The inference step with a tied output layer (R = E, not D) and rows that beam search reordered
// and repeated (InferenceState::select: projections read through source_rows, also the fixed
// context's without attention).
TEST(Seq2Seq, InferenceStepWithTiedOutputAndReorderedRows) {
  for (const auto& [attention, style] : {std::pair{AttentionType::concat, DecoderStyle::bahdanau},
                                         std::pair{AttentionType::concat, DecoderStyle::luong},
                                         std::pair{AttentionType::none, DecoderStyle::bahdanau},
                                         std::pair{AttentionType::none, DecoderStyle::luong}}) {
    ModelConfig c = test::tiny_config(attention, style, 2);
    c.tie_output_embedding = true;
    at::manual_seed(9);
    Seq2Seq model(c);
    model->eval();
    const Batch batch = test::varied_batch(c);
    const at::Tensor order = at::tensor({2, 0, 0, 4, 1}, at::kLong);
    c10::NoGradGuard no_grad;
    const auto forced = model->forward(batch.source, batch.source_lengths, batch.target_in);
    const auto inference = model->for_inference(kCpu);
    DecoderStatePtr state = inference->encode(batch.source, batch.source_lengths);
    state = inference->step(*state, batch.target_in.select(1, 0)).state->select(order);
    const StepOutput step = inference->step(*state, batch.target_in.select(1, 1).index_select(0, order));
    const at::Tensor expected = forced.logits.select(1, 1).log_softmax(-1).index_select(0, order);
    EXPECT_TRUE(at::allclose(step.log_probs, expected, 1e-5, 1e-6)) << name_of(attention) << name_of(style);
    const at::Tensor forced_attention =
        c.has_attention() ? forced.attention.select(1, 1).index_select(0, order) : at::Tensor();
    EXPECT_TRUE(same_attention(step.attention, forced_attention, 1e-5, 1e-6));
    EXPECT_TRUE(at::equal(step.log_probs[1], step.log_probs[2])) << "a repeated row";
  }
}

// The inference model holds copies without gradients: with autograd on it computes the same bits
// with the same kernels, and its outputs record no graph.
TEST(Seq2Seq, InferenceModelIgnoresGradMode) {
  const ModelConfig c = test::tiny_config(AttentionType::bahdanau, DecoderStyle::bahdanau);
  at::manual_seed(10);
  Seq2Seq model(c);
  const Batch batch = test::varied_batch(c);
  const auto inference = model->for_inference(kCpu);
  const auto first_step = [&] {
    return inference->step(*inference->encode(batch.source, batch.source_lengths), batch.target_in.select(1, 0));
  };
  StepOutput without;
  {
    c10::NoGradGuard no_grad;
    without = first_step();
  }
  const StepOutput with = first_step();
  EXPECT_FALSE(with.log_probs.requires_grad());
  EXPECT_TRUE(at::equal(with.log_probs, without.log_probs));
  EXPECT_TRUE(at::equal(with.attention, without.attention));
}

TEST_P(EveryArchitecture, PaddingNeverChangesARealSentence) {
  const ModelConfig c = config();
  at::manual_seed(3);
  Seq2Seq model(c);
  model->eval();
  const auto source = test::random_sequences({9, 4, 6, 2}, static_cast<int>(c.source_vocab_size), 7);
  const auto target = test::random_sequences({3, 8, 5, 6}, static_cast<int>(c.target_vocab_size), 8);
  const auto corpus = ParallelCorpus::from_sequences(source, target);
  const Batch batch = make_batch(corpus, {0, 1, 2, 3});
  const auto together = model->forward(batch.source, batch.source_lengths, batch.target_in);
  const auto inference = model->for_inference(kCpu);
  const DecoderStatePtr together_opaque = inference->encode(batch.source, batch.source_lengths);
  const InferenceState& together_state = as_inference_state(*together_opaque);
  for (std::int64_t row = 0; row < batch.size(); ++row) {
    const Batch alone = make_batch(corpus, {batch.indices[static_cast<std::size_t>(row)]});
    const auto single = model->forward(alone.source, alone.source_lengths, alone.target_in);
    const std::int64_t S = alone.source.size(1), T = alone.target_in.size(1);
    const DecoderStatePtr single_opaque = inference->encode(alone.source, alone.source_lengths);
    const InferenceState& single_state = as_inference_state(*single_opaque);
    EXPECT_TRUE(at::allclose(together_state.memory[row].slice(0, 0, S), single_state.memory[0], 1e-5, 1e-5));
    EXPECT_TRUE(at::allclose(together_state.hidden.select(1, row), single_state.hidden.select(1, 0), 1e-5, 1e-5));
    const at::Tensor log_probs = together.logits[row].slice(0, 0, T).log_softmax(-1);
    EXPECT_TRUE(at::allclose(log_probs, single.logits[0].log_softmax(-1), 1e-5, 1e-5)) << "row " << row;
    if (c.has_attention()) {
      EXPECT_TRUE(at::allclose(together.attention[row].slice(0, 0, T).slice(1, 0, S), single.attention[0], 1e-5, 1e-5));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, EveryArchitecture,
                         ::testing::Combine(::testing::Values(AttentionType::bahdanau, AttentionType::dot,
                                                              AttentionType::general, AttentionType::concat,
                                                              AttentionType::none),
                                            ::testing::Values(DecoderStyle::bahdanau, DecoderStyle::luong),
                                            ::testing::Values(1, 2), ::testing::Values(test::AttentionKind{})),
                         combination_name);
// The sparse normalisers and the local windows with the additive and the general score, in both styles.
INSTANTIATE_TEST_SUITE_P(Kinds, EveryArchitecture,
                         ::testing::Combine(::testing::Values(AttentionType::bahdanau, AttentionType::general),
                                            ::testing::Values(DecoderStyle::bahdanau, DecoderStyle::luong),
                                            ::testing::Values(1), ::testing::ValuesIn(test::other_attention_kinds())),
                         combination_name);

// 20 random pairs of 3 to 8 tokens (vocabularies 37 and 41, tiny_config's) in one batch.
Batch twenty_pairs() {
  std::vector<int> lengths(20);
  for (int i = 0; i < 20; ++i) lengths[static_cast<std::size_t>(i)] = 3 + i % 6;
  const auto corpus = ParallelCorpus::from_sequences(test::random_sequences(lengths, 37, 21),
                                                     test::random_sequences(lengths, 41, 22));
  std::vector<std::size_t> all(20);
  std::iota(all.begin(), all.end(), 0);
  return make_batch(corpus, all);
}

// A tiny model learns 20 sentence pairs by heart, for each attention type (and the style that
// pairs with it in the literature; Cho et al.'s decoder without attention is Bahdanau's without a_t).
class Overfits : public ::testing::TestWithParam<AttentionType> {};

TEST_P(Overfits, TwentyPairs) {
  const bool bahdanau_style = GetParam() == AttentionType::bahdanau || GetParam() == AttentionType::none;
  ModelConfig c = test::tiny_config(GetParam(), bahdanau_style ? DecoderStyle::bahdanau : DecoderStyle::luong);
  c.embedding_size = c.encoder_hidden_size = c.decoder_hidden_size = c.attention_size = 32;
  at::manual_seed(4);
  const Batch batch = twenty_pairs();
  Seq2Seq model(c);
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(0.02));
  double loss_value = 0;
  for (int step = 0; step < 300; ++step) {
    optimizer.zero_grad();
    const auto out = model->forward(batch.source, batch.source_lengths, batch.target_in);
    const auto loss = torch::nn::functional::cross_entropy(
        out.logits.reshape({-1, c.target_vocab_size}), batch.target_out.reshape(-1),
        torch::nn::functional::CrossEntropyFuncOptions().ignore_index(SpecialIds::kPad));
    loss.backward();
    optimizer.step();
    loss_value = loss.item<double>();
    if (loss_value < 0.05) break;
  }
  EXPECT_LT(loss_value, 0.05) << "from ln(41) = 3.71 at the start";
}

INSTANTIATE_TEST_SUITE_P(All, Overfits,
                         ::testing::Values(AttentionType::bahdanau, AttentionType::dot, AttentionType::general,
                                           AttentionType::concat, AttentionType::none),
                         [](const ::testing::TestParamInfo<AttentionType>& param_info) {
                           return name_of(param_info.param);
                         });

// Trained hard attention (model.attention-normaliser = hard): in training every weight row is one
// state (straight-through Gumbel-softmax), and the loss falls: a tiny model learns 20 pairs.
TEST(Seq2Seq, TrainedHardAttentionAttendsToOneStateAndLearns) {
  ModelConfig c = test::tiny_config(AttentionType::general, DecoderStyle::luong);
  c.embedding_size = c.encoder_hidden_size = c.decoder_hidden_size = c.attention_size = 32;
  c.attention_normaliser = AttentionNormaliser::hard;
  at::manual_seed(4);
  const Batch batch = twenty_pairs();
  Seq2Seq model(c);
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(0.02));
  std::vector<double> losses;
  for (int step = 0; step < 200; ++step) {
    model->set_training_step(step);
    optimizer.zero_grad();
    const auto out = model->forward(batch.source, batch.source_lengths, batch.target_in);
    if (step == 0) {
      const at::Tensor rows = out.attention.reshape({-1, out.attention.size(-1)});
      EXPECT_TRUE(at::equal(rows.amax(-1), at::ones({rows.size(0)})));
      EXPECT_TRUE(at::equal(rows.sum(-1), at::ones({rows.size(0)})));
    }
    const auto loss = torch::nn::functional::cross_entropy(
        out.logits.reshape({-1, c.target_vocab_size}), batch.target_out.reshape(-1),
        torch::nn::functional::CrossEntropyFuncOptions().ignore_index(SpecialIds::kPad));
    loss.backward();
    optimizer.step();
    losses.push_back(loss.item<double>());
  }
  EXPECT_LT(losses.back(), 0.25 * losses.front()) << "from " << losses.front();
}

TEST(Seq2Seq, StateSelectReordersAndRepeatsRows) {
  const ModelConfig c = test::tiny_config(AttentionType::general, DecoderStyle::luong, 2);
  at::manual_seed(5);
  Seq2Seq model(c);
  const auto inference = model->for_inference(kCpu);
  const Batch batch = test::varied_batch(c);
  c10::NoGradGuard no_grad;
  const DecoderStatePtr opaque = inference->encode(batch.source, batch.source_lengths);
  const at::Tensor order = at::tensor({2, 0, 0, 4}, at::kLong);
  const DecoderStatePtr picked_opaque = opaque->select(order);
  EXPECT_EQ(picked_opaque->batch_size(), 4);
  const StepOutput all = inference->step(*opaque, batch.target_in.select(1, 0));
  const StepOutput some = inference->step(*picked_opaque, batch.target_in.select(1, 0).index_select(0, order));
  EXPECT_TRUE(at::allclose(some.log_probs, all.log_probs.index_select(0, order), 1e-6, 1e-6));
  EXPECT_TRUE(at::allclose(some.attention, all.attention.index_select(0, order), 1e-6, 1e-6));
  EXPECT_TRUE(at::equal(some.log_probs[1], some.log_probs[2]));
  // Memory, keys and projections are shared, not copied: the row index composes over selections.
  const InferenceState& state = as_inference_state(*opaque);
  const InferenceState& picked = as_inference_state(*picked_opaque);
  EXPECT_EQ(picked.memory.data_ptr(), state.memory.data_ptr());
  EXPECT_EQ(picked.keys.data_ptr(), state.keys.data_ptr());
  EXPECT_EQ(picked.projected.data_ptr(), state.projected.data_ptr());
  EXPECT_TRUE(at::equal(picked.source_rows, order));
  const DecoderStatePtr twice = picked.select(at::tensor({3, 0}, at::kLong));
  EXPECT_TRUE(at::equal(as_inference_state(*twice).source_rows, at::tensor({4, 2}, at::kLong)));
}

TEST(Seq2Seq, SharedEmbeddingsTyingAndBridgeChangeParameters) {
  ModelConfig c = test::tiny_config(AttentionType::bahdanau, DecoderStyle::bahdanau);
  c.target_vocab_size = c.source_vocab_size;
  const auto names = [](const ModelConfig& config) {
    std::set<std::string> out;
    for (const auto& p : Seq2Seq(config)->named_parameters()) out.insert(p.key());
    return out;
  };
  const auto plain = names(c);
  EXPECT_TRUE(plain.count("target_embedding.weight"));
  EXPECT_TRUE(plain.count("output.weight"));
  EXPECT_TRUE(plain.count("decoder.bridge.weight"));
  EXPECT_TRUE(plain.count("encoder.rnn.weight_hh_l0_reverse"));
  c.share_embeddings = true;
  c.tie_output_embedding = true;
  c.bridge = BridgeType::zero;
  const auto lean = names(c);
  EXPECT_FALSE(lean.count("target_embedding.weight"));
  EXPECT_FALSE(lean.count("output.weight"));
  EXPECT_FALSE(lean.count("decoder.bridge.weight"));
  EXPECT_TRUE(lean.count("output.bias"));

  Seq2Seq tied(c);
  tied->eval();
  const Batch batch = test::varied_batch(c);
  auto params = tied->named_parameters();
  {
    // One matrix serves as both embeddings and the output layer: with it zeroed, every logit is
    // the output bias.
    torch::NoGradGuard no_grad;
    params["source_embedding.weight"].zero_();
  }
  const auto out = tied->forward(batch.source, batch.source_lengths, batch.target_in);
  EXPECT_TRUE(at::allclose(out.logits, params["output.bias"].expand_as(out.logits)));
}

TEST(Seq2Seq, PaddingEmbeddingGetsNoGradient) {
  const ModelConfig c = test::tiny_config(AttentionType::bahdanau, DecoderStyle::luong);
  Seq2Seq model(c);
  const Batch batch = test::varied_batch(c);
  model->forward(batch.source, batch.source_lengths, batch.target_in).logits.sum().backward();
  auto params = model->named_parameters();
  for (const char* name : {"source_embedding.weight", "target_embedding.weight"}) {
    ASSERT_TRUE(params[name].grad().defined());
    EXPECT_GT(params[name].grad().abs().sum().item<double>(), 0.0) << name;
    EXPECT_EQ(params[name].grad()[SpecialIds::kPad].abs().sum().item<double>(), 0.0) << name;
  }
}

TEST(Seq2Seq, InitialisationIsSeededAndZeroesPadding) {
  const ModelConfig c = test::tiny_config(AttentionType::dot, DecoderStyle::luong);
  at::manual_seed(9);
  Seq2Seq a(c);
  at::manual_seed(9);
  Seq2Seq b(c);
  const auto pa = a->named_parameters(), pb = b->named_parameters();
  for (const auto& p : pa) {
    EXPECT_TRUE(at::equal(p.value(), pb[p.key()])) << p.key();
    EXPECT_LE(p.value().abs().max().item<double>(), 0.1) << p.key();
  }
  EXPECT_EQ(pa["source_embedding.weight"][SpecialIds::kPad].abs().sum().item<double>(), 0.0);
}

TEST(ModelConfig, JsonRoundTripAndErrors) {
  ModelConfig c = test::tiny_config(AttentionType::concat, DecoderStyle::luong, 2);
  c.bridge = BridgeType::zero;
  c.dropout = 0.25;
  EXPECT_EQ(ModelConfig::from_json(c.to_json()), c);
  EXPECT_THROW_WITH(ModelConfig::from_json("{"), DataError, "model config");
  std::string extra = c.to_json();
  extra.insert(1, "\"colour\":1,");
  EXPECT_THROW_WITH(ModelConfig::from_json(extra), DataError, "unknown key 'colour'");
  std::string bad = c.to_json();
  bad.replace(bad.find("\"concat\""), 8, "\"cosine\"");
  EXPECT_THROW_WITH(ModelConfig::from_json(bad), DataError, "unknown attention type 'cosine'");
  c.dropout = 1.0;
  EXPECT_THROW_WITH(c.validate(), ConfigError, "model.dropout");
  c.dropout = 0.1;
  c.share_embeddings = true;
  EXPECT_THROW_WITH(c.validate(), ConfigError, "share_embeddings");
  c.share_embeddings = false;
  c.decoder_layers = 0;
  EXPECT_THROW_WITH(c.validate(), ConfigError, "model.decoder_layers");
  EXPECT_THROW_WITH(Seq2Seq{c}, ConfigError, "model.decoder_layers");
}

// The normaliser is written only when it is not softmax: a softmax model's config reads as before
// (and in an nmt that predates the key), and a config without it, every older checkpoint's, is softmax.
TEST(ModelConfig, AttentionNormaliserIsStoredOnlyWhenNotSoftmax) {
  ModelConfig c = test::tiny_config(AttentionType::general, DecoderStyle::luong, 1);
  EXPECT_EQ(c.to_json().find("attention_normaliser"), std::string::npos);
  EXPECT_EQ(ModelConfig::from_json(c.to_json()).attention_normaliser, AttentionNormaliser::softmax);
  for (const auto normaliser : {AttentionNormaliser::sparsemax, AttentionNormaliser::entmax15}) {
    c.attention_normaliser = normaliser;
    EXPECT_NE(c.to_json().find("\"attention_normaliser\":\"" + name_of(normaliser) + "\""), std::string::npos);
    EXPECT_EQ(ModelConfig::from_json(c.to_json()), c);
  }
  std::string bad = c.to_json();
  bad.replace(bad.find("\"entmax15\""), 10, "\"entmax2\"");
  EXPECT_THROW_WITH(ModelConfig::from_json(bad), DataError, "unknown attention normaliser 'entmax2'");
  c.attention = AttentionType::none;
  EXPECT_THROW_WITH(c.validate(), ConfigError, "model.attention-normaliser entmax15 needs attention");
}

// --model.encoder-hidden-size 200000 once printed a 27-line C++ backtrace: 3 x 200000^2 floats
// (480 GB) for one GRU matrix cannot be allocated. One line that says the sizes instead.
TEST(Seq2Seq, ModelTooLargeToAllocateIsOneLineWithItsSizes) {
  ModelConfig config = test::tiny_config(AttentionType::dot, DecoderStyle::luong, 1);
  config.encoder_hidden_size = 200000;
  config.decoder_hidden_size = 2 * config.encoder_hidden_size;  // dot attention: s_t and h_j alike
  try {
    Seq2Seq model(config);
    GTEST_SKIP() << "this machine allocated 480 GB";
  } catch (const ConfigError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("cannot build the model"), std::string::npos) << message;
    EXPECT_NE(message.find("encoder-hidden-size 200000"), std::string::npos) << message;
    EXPECT_NE(message.find("allocate"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace nmt
