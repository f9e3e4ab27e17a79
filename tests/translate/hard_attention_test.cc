// Hard attention at inference (nmt/model/attention_hardening.h): one-hot weights at the soft
// weights' largest, a soft model left as it was, the Translator's batch invariance, ensembles, and
// the models that cannot be hardened.
#include "nmt/model/attention_hardening.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/types.h>

#include "nmt/core/error.h"
#include "nmt/data/source_batching.h"
#include "nmt/model/ensemble_decoder.h"
#include "nmt/model/inference/inference_model.h"
#include "nmt/model/seq2seq.h"
#include "nmt/translate/translator.h"
#include "tests/model/model_test_util.h"
#include "tests/search/fake_model.h"
#include "tests/test_util.h"

// A namespace of its own: the unity build puts this file in one unit with others.
namespace nmt::hard_attention_test {
namespace {

const std::vector<std::string> kSentences = {
    "Y dijo Dios: Sea la luz: y fué la luz.",
    "Y vió Dios que la luz era buena.",
    "",
    "Y llamó Dios á la luz Día, y á las tinieblas llamó Noche: y fué la tarde y la mañana un día.",
    "EN el principio crió Dios los cielos y la tierra.",
};

// Sizes are multiples of 16, the condition of bit-for-bit batch invariance (docs/search.md).
std::unique_ptr<InferenceModel> random_model(const Tokenizer& tok, AttentionType attention, DecoderStyle style,
                                             std::uint64_t seed,
                                             AttentionNormaliser normaliser = AttentionNormaliser::softmax) {
  ModelConfig config = test::tiny_config(attention, style);
  config.embedding_size = config.decoder_hidden_size = config.attention_size = 32;
  config.encoder_hidden_size = 16;
  config.source_vocab_size = config.target_vocab_size = tok.vocab_size();
  config.attention_normaliser = normaliser;
  at::manual_seed(seed);
  Seq2Seq model(config);
  return model->for_inference(c10::Device(c10::kCPU));
}

TranslateOptions options(std::int64_t beam, bool hard) {
  TranslateOptions o;
  o.search.beam_size = beam;
  o.search.max_length_a = 0;
  o.search.max_length_b = 12;
  o.search.hard_attention = hard;
  return o;
}

// Every row one 1 and zeros elsewhere, bit for bit.
::testing::AssertionResult one_hot_rows(const at::Tensor& weights) {
  const at::Tensor ones = (weights == 1).sum(-1), zeros = (weights == 0).sum(-1);
  if ((ones == 1).all().item<bool>() && (ones + zeros == weights.size(-1)).all().item<bool>()) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "not one-hot: " << weights;
}

// The first step reads the same scores soft or hard, so its hard weights are the soft weights'
// argmax; the context then differs, and with it the step's distribution. Making the hard model
// leaves the soft one as it was, bit for bit.
TEST(HardAttention, StepsAttendToOneStateAndTheSoftModelIsUnchanged) {
  const Tokenizer& tok = test::toy_tokenizer();
  for (const auto& [attention, style, normaliser] :
       {std::tuple{AttentionType::bahdanau, DecoderStyle::bahdanau, AttentionNormaliser::softmax},
        std::tuple{AttentionType::general, DecoderStyle::luong, AttentionNormaliser::softmax},
        std::tuple{AttentionType::general, DecoderStyle::luong, AttentionNormaliser::entmax15}}) {
    SCOPED_TRACE(name_of(attention) + " " + name_of(normaliser));
    const auto soft = random_model(tok, attention, style, 3, normaliser);
    std::vector<std::vector<int>> ids;
    for (const auto& s : kSentences) {
      if (!s.empty()) ids.push_back(tok.encode(s));
    }
    std::vector<std::size_t> order(ids.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    const SourceBatch batch = make_source_batch(ids, order, 0, ids.size());
    torch::NoGradGuard no_grad;
    const at::Tensor bos = at::full({batch.source.size(0)}, SpecialIds::kBos, at::kLong);
    const StepOutput before = soft->step(*soft->encode(batch.source, batch.lengths), bos);

    const std::shared_ptr<const IncrementalDecoder> hard = harden_attention(*soft);
    DecoderStatePtr state = hard->encode(batch.source, batch.lengths);
    StepOutput step = hard->step(*state, bos);
    EXPECT_TRUE(at::equal(step.attention, hard_weights(before.attention)));
    EXPECT_FALSE(at::allclose(step.log_probs, before.log_probs));
    for (int t = 0; t < 4; ++t) {
      EXPECT_TRUE(one_hot_rows(step.attention)) << "step " << t;
      EXPECT_TRUE(at::equal(step.attention.sum(-1), at::ones({batch.source.size(0)})));
      step = hard->step(*step.state, step.log_probs.argmax(-1));
    }
    const StepOutput after = soft->step(*soft->encode(batch.source, batch.lengths), bos);
    EXPECT_TRUE(at::equal(after.log_probs, before.log_probs));
    EXPECT_TRUE(at::equal(after.attention, before.attention));
  }
}

TEST(HardAttention, TranslatorIsBatchInvariantBitForBitAndKeepsOneHotAttention) {
  const Tokenizer& tok = test::toy_tokenizer();
  const auto model = random_model(tok, AttentionType::bahdanau, DecoderStyle::bahdanau, 5);
  for (const std::int64_t beam : {1, 3}) {
    SCOPED_TRACE("beam " + std::to_string(beam));
    TranslateOptions batched_options = options(beam, true);
    batched_options.search.keep_attention = true;
    TranslateOptions one_by_one = batched_options;
    one_by_one.max_sentences = 1;
    Translator batched(*model, tok, tok, batched_options, at::kCPU);
    Translator single(*model, tok, tok, one_by_one, at::kCPU);
    Translator soft(*model, tok, tok, options(beam, false), at::kCPU);
    const auto all = batched.translate(kSentences), alone = single.translate(kSentences);
    const auto softly = soft.translate(kSentences);
    bool any_differs = false;
    for (std::size_t i = 0; i < kSentences.size(); ++i) {
      if (kSentences[i].empty()) continue;
      EXPECT_EQ(all[i].hypotheses[0].tokens, alone[i].hypotheses[0].tokens) << i;
      EXPECT_EQ(all[i].hypotheses[0].score, alone[i].hypotheses[0].score) << i;
      EXPECT_TRUE(one_hot_rows(all[i].hypotheses[0].attention)) << i;
      any_differs = any_differs || all[i].hypotheses[0].log_prob != softly[i].hypotheses[0].log_prob;
    }
    EXPECT_TRUE(any_differs) << "hard and soft attention translated every sentence alike";
  }
}

// An ensemble hardens its members: a model with itself translates as the hardened model alone.
TEST(HardAttention, EnsembleHardensItsMembers) {
  const Tokenizer& tok = test::toy_tokenizer();
  const auto model = random_model(tok, AttentionType::general, DecoderStyle::luong, 7);
  const EnsembleDecoder twice({{model.get(), 0}, {model.get(), 0}}, EnsembleMode::log_linear);
  Translator ensemble(twice, tok, tok, options(3, true), at::kCPU);
  Translator alone(*model, tok, tok, options(3, true), at::kCPU);
  const auto a = ensemble.translate(kSentences), b = alone.translate(kSentences);
  for (std::size_t i = 0; i < kSentences.size(); ++i) {
    if (kSentences[i].empty()) continue;
    EXPECT_EQ(a[i].hypotheses[0].tokens, b[i].hypotheses[0].tokens) << i;
    EXPECT_EQ(a[i].hypotheses[0].score, b[i].hypotheses[0].score) << i;
  }
}

TEST(HardAttention, RefusedWhereItCannotBe) {
  const Tokenizer& tok = test::toy_tokenizer();
  const auto none = random_model(tok, AttentionType::none, DecoderStyle::bahdanau, 9);
  EXPECT_THROW_WITH(Translator(*none, tok, tok, options(1, true), at::kCPU), ConfigError,
                    "hard-attention needs attention weights");
  // A model whose steps are not ours (a scripted checkpoint's methods are such a model).
  const test::FakeModel fake({{5, 6}}, tok.vocab_size());
  EXPECT_THROW_WITH(Translator(fake, tok, tok, options(1, true), at::kCPU), ConfigError, "native engine");
  EXPECT_NO_THROW(Translator(fake, tok, tok, options(1, false), at::kCPU));
}

}  // namespace
}  // namespace nmt::hard_attention_test
