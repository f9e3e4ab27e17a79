// Ensembles (nmt/model/ensemble_decoder.h) through the translator: one model is itself bit for bit,
// a model with itself translates as alone, ensembles are batch invariant, members may read the
// source with other subword models.
#include "nmt/model/ensemble_decoder.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/types.h>

#include <cmath>

#include "nmt/core/error.h"
#include "nmt/data/source_batching.h"
#include "nmt/model/inference/inference_model.h"
#include "nmt/model/seq2seq.h"
#include "nmt/translate/translator.h"
#include "tests/model/model_test_util.h"
#include "tests/test_util.h"

namespace nmt {
// Its own namespace: a unity build compiles this file together with others (docs/architecture.md).
namespace ensemble_test {
namespace {

const std::vector<std::string> kSentences = {
    "Y dijo Dios: Sea la luz: y fué la luz.",
    "",
    "Y vió Dios que la luz era buena.",
    "Y llamó Dios á la luz Día, y á las tinieblas llamó Noche: y fué la tarde y la mañana un día.",
    "EN el principio crió Dios los cielos y la tierra.",
    "Y la tierra estaba desadornada y vacía.",
};
const std::vector<std::string> kTargets = {"And God said, Let there be light.", "", "And God saw the light, that it was good.",
                                           "Day", "In the beginning God created the heavens and the earth.", "void"};

// A random model (sizes multiples of 16, for bit-for-bit batch invariance) over the given vocabularies.
std::unique_ptr<InferenceModel> random_model(const Tokenizer& source, const Tokenizer& target, std::uint64_t seed,
                                             AttentionType attention = AttentionType::general,
                                             DecoderStyle style = DecoderStyle::luong) {
  ModelConfig config = test::tiny_config(attention, style);
  config.embedding_size = config.decoder_hidden_size = config.attention_size = 32;
  config.encoder_hidden_size = 16;
  config.source_vocab_size = source.vocab_size();
  config.target_vocab_size = target.vocab_size();
  at::manual_seed(seed);
  Seq2Seq model(config);
  // Larger weights than the initialisation's: peaky distributions, so that models disagree visibly.
  torch::NoGradGuard no_grad;
  for (auto& p : model->parameters()) p.mul_(4);
  return model->for_inference(c10::Device(c10::kCPU));
}

TranslateOptions options(std::int64_t beam, std::int64_t n_best = 1) {
  TranslateOptions o;
  o.search.beam_size = beam;
  o.search.n_best = n_best;
  o.search.max_length_a = 0;
  o.search.max_length_b = 12;
  o.search.keep_attention = true;
  return o;
}

void expect_same(const std::vector<Translation>& a, const std::vector<Translation>& b, bool scores = true) {
  ASSERT_EQ(a.size(), b.size());
  std::size_t tokens = 0;
  for (const Translation& t : a) {
    for (const auto& h : t.hypotheses) tokens += h.tokens.size();
  }
  EXPECT_GT(tokens, 2 * a.size()) << "translations of a few tokens at least, or the comparison means little";
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].hypotheses.size(), b[i].hypotheses.size()) << i;
    for (std::size_t h = 0; h < a[i].hypotheses.size(); ++h) {
      const auto& x = a[i].hypotheses[h];
      const auto& y = b[i].hypotheses[h];
      EXPECT_EQ(x.tokens, y.tokens) << "sentence " << i << ", hypothesis " << h;
      if (!scores) continue;
      EXPECT_EQ(x.score, y.score) << i << " " << h;
      EXPECT_EQ(x.log_prob, y.log_prob) << i << " " << h;
      EXPECT_TRUE(at::equal(x.attention, y.attention)) << i << " " << h;
    }
  }
}

TEST(Ensemble, OfOneModelIsThatModelBitForBit) {
  const Tokenizer& tok = test::toy_tokenizer();
  const auto model = random_model(tok, tok, 1);
  for (const auto mode : {EnsembleMode::log_linear, EnsembleMode::linear}) {
    const EnsembleDecoder ensemble({{model.get(), 0}}, mode);
    for (const std::int64_t beam : {1, 3}) {
      SCOPED_TRACE(name_of(mode) + " beam " + std::to_string(beam));
      Translator alone(*model, tok, tok, options(beam, beam == 1 ? 1 : 2), at::kCPU);
      Translator together(ensemble, tok, tok, options(beam, beam == 1 ? 1 : 2), at::kCPU);
      expect_same(alone.translate(kSentences), together.translate(kSentences));
      EXPECT_EQ(alone.score(kSentences, kTargets), together.score(kSentences, kTargets));
    }
  }
}

TEST(Ensemble, OfAModelWithItselfTranslatesAsTheModel) {
  const Tokenizer& tok = test::toy_tokenizer();
  const auto model = random_model(tok, tok, 2);
  Translator alone(*model, tok, tok, options(3, 2), at::kCPU);
  const auto expected = alone.translate(kSentences);
  // Log-linear: (x + x) / 2 is x in floating point, so even the scores are the model's.
  const EnsembleDecoder twice({{model.get(), 0}, {model.get(), 0}}, EnsembleMode::log_linear);
  Translator log_linear(twice, tok, tok, options(3, 2), at::kCPU);
  expect_same(expected, log_linear.translate(kSentences));
  EXPECT_EQ(alone.score(kSentences, kTargets), log_linear.score(kSentences, kTargets));
  // Linear: log((p + p) / 2) is log p up to rounding: the same translations, scores within 1e-4.
  const EnsembleDecoder twice_linear({{model.get(), 0}, {model.get(), 0}}, EnsembleMode::linear);
  Translator linear(twice_linear, tok, tok, options(3, 2), at::kCPU);
  const auto got = linear.translate(kSentences);
  expect_same(expected, got, /*scores=*/false);
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!got[i].hypotheses.empty()) {
      EXPECT_NEAR(got[i].hypotheses[0].log_prob, expected[i].hypotheses[0].log_prob, 1e-4);
    }
  }
}

TEST(Ensemble, CombinesTheMembersStepByStepInBothModes) {
  const Tokenizer& tok = test::toy_tokenizer();
  const auto a = random_model(tok, tok, 3, AttentionType::bahdanau, DecoderStyle::bahdanau);
  const auto b = random_model(tok, tok, 4, AttentionType::dot, DecoderStyle::luong);
  const auto c = random_model(tok, tok, 5, AttentionType::none, DecoderStyle::luong);
  torch::NoGradGuard no_grad;
  const at::Tensor source = at::tensor({11, 12, 13, static_cast<int>(SpecialIds::kEos), 21, 22,
                                        static_cast<int>(SpecialIds::kEos), 0},
                                       at::kLong)
                                .view({2, 4});
  const at::Tensor lengths = at::tensor({4, 3}, at::kLong);
  const at::Tensor bos = at::full({2}, SpecialIds::kBos, at::kLong);
  const StepOutput sa = a->step(*a->encode(source, lengths), bos);
  const StepOutput sb = b->step(*b->encode(source, lengths), bos);
  const StepOutput sc = c->step(*c->encode(source, lengths), bos);
  const EnsembleDecoder log_linear({{a.get(), 0}, {b.get(), 0}, {c.get(), 0}}, EnsembleMode::log_linear);
  const EnsembleDecoder linear({{a.get(), 0}, {b.get(), 0}, {c.get(), 0}}, EnsembleMode::linear);
  const StepOutput l = log_linear.step(*log_linear.encode(source, lengths), bos);
  const StepOutput m = linear.step(*linear.encode(source, lengths), bos);
  EXPECT_TRUE(at::allclose(l.log_probs, (sa.log_probs + sb.log_probs + sc.log_probs) / 3, 1e-6, 1e-6));
  const at::Tensor mean_p = (sa.log_probs.exp() + sb.log_probs.exp() + sc.log_probs.exp()) / 3;
  EXPECT_TRUE(at::allclose(m.log_probs, mean_p.log(), 1e-5, 1e-5));
  EXPECT_NEAR(m.log_probs.exp().sum(1)[0].item<double>(), 1.0, 1e-5) << "the linear mixture is a distribution";
  // The attention is the mean of the members that have one; each row sums to 1.
  EXPECT_TRUE(at::allclose(l.attention, (sa.attention + sb.attention) / 2, 1e-6, 1e-6));
  EXPECT_TRUE(at::allclose(l.attention.sum(1), at::ones({2}), 1e-5, 1e-5));
  EXPECT_FALSE(at::allclose(sa.log_probs, sb.log_probs, 1e-2, 1e-2)) << "the members must differ for this to mean anything";
}

TEST(Ensemble, IsBatchInvariantBitForBit) {
  const Tokenizer& tok = test::toy_tokenizer();
  const auto a = random_model(tok, tok, 6);
  const auto b = random_model(tok, tok, 7, AttentionType::bahdanau, DecoderStyle::bahdanau);
  for (const auto mode : {EnsembleMode::log_linear, EnsembleMode::linear}) {
    const EnsembleDecoder ensemble({{a.get(), 0}, {b.get(), 0}}, mode);
    for (const std::int64_t beam : {1, 3}) {
      SCOPED_TRACE(name_of(mode) + " beam " + std::to_string(beam));
      TranslateOptions one_by_one = options(beam);
      one_by_one.max_sentences = 1;
      Translator batched(ensemble, tok, tok, options(beam), at::kCPU);
      Translator single(ensemble, tok, tok, one_by_one, at::kCPU);
      expect_same(batched.translate(kSentences), single.translate(kSentences));
    }
  }
}

// Member b reads the source with another subword model (300 pieces against a's 500): the ensemble
// scores a pair as the mean of what the members score it with their own segmentations, and stays
// batch invariant.
TEST(Ensemble, MembersWithOtherSourceSubwordModelsReadTheirOwnSegmentation) {
  const Tokenizer& tok = test::toy_tokenizer(500);
  const Tokenizer& other = test::toy_tokenizer(300);
  ASSERT_NE(tok.encode(kSentences[0]), other.encode(kSentences[0]));
  const auto a = random_model(tok, tok, 8);
  const auto b = random_model(other, tok, 9);
  // The ensemble owns b's subword model: the Translator is given the ensemble and view 0's alone.
  const EnsembleDecoder ensemble({{a.get(), 0}, {b.get(), 1}}, EnsembleMode::log_linear, SourceViews({other}));
  ASSERT_EQ(ensemble.source_views().size(), 1u);
  Translator together(ensemble, tok, tok, options(3), at::kCPU);
  Translator only_a(*a, tok, tok, options(3), at::kCPU);
  Translator only_b(*b, other, tok, options(3), at::kCPU);
  const auto sa = only_a.score(kSentences, kTargets);
  const auto sb = only_b.score(kSentences, kTargets);
  const auto s = together.score(kSentences, kTargets);
  for (std::size_t i = 0; i < kSentences.size(); ++i) EXPECT_NEAR(s[i], (sa[i] + sb[i]) / 2, 1e-3) << i;
  EXPECT_GT(std::abs(sa[0] - sb[0]), 0.1) << "the members must differ for this to mean anything";

  TranslateOptions one_by_one = options(3);
  one_by_one.max_sentences = 1;
  Translator single(ensemble, tok, tok, one_by_one, at::kCPU);
  expect_same(together.translate(kSentences), single.translate(kSentences));

  // Search only ever sees the step interface: the ensemble itself, without a batch's views, is
  // refused at encode, and views must match the members that read them.
  const SourceBatch batch = make_source_batch({tok.encode(kSentences[0])}, {0}, 0, 1);
  EXPECT_THROW_WITH(ensemble.encode(batch.source, batch.lengths), Error, "for_batch()");
  EXPECT_THROW_WITH(EnsembleDecoder({{a.get(), 0}, {b.get(), 1}}, EnsembleMode::log_linear), Error,
                    "0 further source view(s)");
  EXPECT_THROW_WITH(EnsembleDecoder({{a.get(), 0}, {b.get(), 0}}, EnsembleMode::log_linear, SourceViews({other})),
                    Error, "1 further source view(s)");
}

TEST(Ensemble, RefusesMembersWithOtherTargetVocabularies) {
  const Tokenizer& tok = test::toy_tokenizer(500);
  const Tokenizer& other = test::toy_tokenizer(300);
  const auto a = random_model(tok, tok, 10);
  const auto b = random_model(tok, other, 11);
  EXPECT_THROW_WITH(EnsembleDecoder({{a.get(), 0}, {b.get(), 0}}, EnsembleMode::log_linear), ConfigError,
                    "target vocabularies of 500 and 300");
  EXPECT_THROW_WITH(EnsembleDecoder({}, EnsembleMode::linear), ConfigError, "at least one model");
}

}  // namespace
}  // namespace ensemble_test
}  // namespace nmt
