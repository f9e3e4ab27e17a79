// Translator: order restoration, empty lines, long inputs, forced decoding, <unk> replacement and
// the output formats, with a random model over the toy tokenizer and a scripted fake.
#include "nmt/translate/translator.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/types.h>

#include "nmt/core/error.h"
#include "nmt/model/inference/inference_model.h"
#include "nmt/model/seq2seq.h"
#include "nmt/search/beam_search.h"
#include "nmt/search/greedy_search.h"
#include "nmt/translate/translation_output.h"
#include "tests/model/model_test_util.h"
#include "tests/search/fake_model.h"
#include "tests/test_util.h"

namespace nmt {
namespace {

const std::vector<std::string> kSentences = {
    "Y dijo Dios: Sea la luz: y fué la luz.",
    "",
    "Y vió Dios que la luz era buena.",
    "   ",
    "Y llamó Dios á la luz Día, y á las tinieblas llamó Noche: y fué la tarde y la mañana un día.",
    "EN el principio crió Dios los cielos y la tierra.",
};

// Sizes are multiples of 16: the condition under which results are bit-for-bit batch invariant
// (docs/search.md, "Batch invariance").
std::unique_ptr<InferenceModel> random_model(const Tokenizer& tokenizer,
                                             AttentionType attention = AttentionType::bahdanau,
                                             DecoderStyle style = DecoderStyle::bahdanau,
                                             const test::AttentionKind& kind = {}) {
  ModelConfig config = test::tiny_config(attention, style);
  kind.apply(config);
  config.embedding_size = config.decoder_hidden_size = config.attention_size = 32;
  config.encoder_hidden_size = 16;
  config.source_vocab_size = config.target_vocab_size = tokenizer.vocab_size();
  at::manual_seed(7);
  Seq2Seq model(config);
  return model->for_inference(c10::Device(c10::kCPU));
}

TranslateOptions options(std::int64_t beam) {
  TranslateOptions o;
  o.search.beam_size = beam;
  o.search.max_length_a = 0;
  o.search.max_length_b = 12;
  return o;
}

// Order, empty lines, and batch invariance bit for bit: every sentence gets the same tokens and
// scores alone as in one batch, for greedy and beam search with both penalties, for every
// attention type and decoder style, and the sparse normalisers and local windows with the additive
// and general scores.
TEST(Translator, KeepsInputOrderAndEmptyLinesAndIsBatchInvariantBitForBit) {
  const Tokenizer& tok = test::toy_tokenizer();
  std::vector<std::pair<AttentionType, test::AttentionKind>> kinds;
  for (const auto attention : {AttentionType::bahdanau, AttentionType::dot, AttentionType::general, AttentionType::concat,
                               AttentionType::none}) {
    kinds.emplace_back(attention, test::AttentionKind{});
  }
  for (const test::AttentionKind& kind : test::other_attention_kinds()) {
    kinds.emplace_back(AttentionType::bahdanau, kind);
    kinds.emplace_back(AttentionType::general, kind);
  }
  for (const auto& [attention, kind] : kinds)
  for (const auto style : {DecoderStyle::bahdanau, DecoderStyle::luong})
  for (const std::int64_t beam : {1, 3}) {
    SCOPED_TRACE(name_of(attention) + kind.suffix() + " " + name_of(style) + " beam " + std::to_string(beam));
    const auto model = random_model(tok, attention, style, kind);
    TranslateOptions batched_options = options(beam);
    if (attention != AttentionType::none) batched_options.search.coverage_beta = 0.2;  // (it needs attention)
    Translator batched(*model, tok, tok, batched_options, at::kCPU);
    TranslateOptions one_by_one = batched_options;
    one_by_one.max_sentences = 1;
    Translator single(*model, tok, tok, one_by_one, at::kCPU);
    const auto all = batched.translate(kSentences);
    const auto alone = single.translate(kSentences);
    ASSERT_EQ(all.size(), kSentences.size());
    for (std::size_t i = 0; i < kSentences.size(); ++i) {
      const bool empty = kSentences[i].find_first_not_of(' ') == std::string::npos;
      ASSERT_EQ(all[i].hypotheses.empty(), empty) << i;
      if (empty) continue;
      EXPECT_EQ(all[i].source, tok.encode(kSentences[i])) << "row " << i << " holds another sentence";
      EXPECT_EQ(all[i].hypotheses[0].tokens, alone[i].hypotheses[0].tokens) << "beam " << beam << ", sentence " << i;
      EXPECT_EQ(all[i].hypotheses[0].score, alone[i].hypotheses[0].score) << "beam " << beam << ", " << i;
      EXPECT_EQ(all[i].hypotheses[0].log_prob, alone[i].hypotheses[0].log_prob) << "beam " << beam << ", " << i;
      EXPECT_EQ(all[i].hypotheses[0].text, tok.decode(all[i].hypotheses[0].tokens));
    }
  }
}

TEST(Translator, LongInputsAreTruncatedOrRejectedNamingTheLine) {
  const Tokenizer& tok = test::toy_tokenizer();
  const auto model = random_model(tok);
  TranslateOptions o = options(1);
  o.max_source_length = 5;
  Translator truncating(*model, tok, tok, o, at::kCPU);
  const auto out = truncating.translate(kSentences, /*first_line=*/10);
  EXPECT_TRUE(out[0].truncated);
  EXPECT_EQ(out[0].source.size(), 5u);
  EXPECT_FALSE(out[1].truncated);
  o.long_inputs = LongInputPolicy::reject;
  Translator rejecting(*model, tok, tok, o, at::kCPU);
  EXPECT_THROW_WITH(rejecting.translate(kSentences, 10), DataError, "input line 10:", "maximum source length 5");
}

TEST(Translator, ForcedDecodingSumsTheStepLogProbabilities) {
  const Tokenizer& tok = test::toy_tokenizer();
  const auto model = random_model(tok);
  const std::vector<std::string> sources = {kSentences[0], kSentences[2], "", kSentences[4]};
  const std::vector<std::string> targets = {"And God said, Let there be light.", "", "Day", "And God saw the light."};
  TranslateOptions o = options(1);
  Translator translator(*model, tok, tok, o, at::kCPU);
  std::vector<std::int64_t> tokens;
  const std::vector<double> scores = translator.score(sources, targets, 1, &tokens);
  ASSERT_EQ(scores.size(), 4u);
  torch::NoGradGuard no_grad;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    // By hand: one sentence, step by step, summing log p of y_1 .. y_m EOS.
    std::vector<int> x = tok.encode(sources[i]), y = tok.encode(targets[i]);
    x.push_back(SpecialIds::kEos);
    y.push_back(SpecialIds::kEos);
    EXPECT_EQ(tokens[i], static_cast<std::int64_t>(y.size()));
    const at::Tensor source = at::tensor(std::vector<std::int64_t>(x.begin(), x.end())).unsqueeze(0);
    DecoderStatePtr state = model->encode(source, at::tensor({static_cast<std::int64_t>(x.size())}));
    std::int64_t previous = SpecialIds::kBos;
    double expected = 0;
    for (int token : y) {
      StepOutput step = model->step(*state, at::tensor({previous}));
      expected += step.log_probs[0][token].item<double>();
      state = std::move(step.state);
      previous = token;
    }
    EXPECT_NEAR(scores[i], expected, 1e-4) << i;
    EXPECT_LT(scores[i], 0);
  }
  EXPECT_THROW_WITH(translator.score(sources, {"a"}), DataError, "as many targets as sources");
}

// The fake emits its script (here <unk> <unk> EOS) attending to source position t at step t.
TEST(Translator, UnknownsBecomeTheSourcePieceTheyAttendToAndAlignmentsFollowWords) {
  const Tokenizer& tok = test::toy_tokenizer();
  test::FakeModel fake({{SpecialIds::kUnk, SpecialIds::kUnk}}, tok.vocab_size());
  TranslateOptions o = options(2);
  o.replace_unknown = true;
  Translator translator(fake, tok, tok, o, at::kCPU);
  const std::string sentence = "Dios creó la luz";
  const std::vector<std::string> pieces = tok.encode_pieces(sentence);
  ASSERT_GE(pieces.size(), 2u);
  const auto out = translator.translate({sentence});
  ASSERT_EQ(out.size(), 1u);
  const TranslatedHypothesis& best = out[0].hypotheses.at(0);
  EXPECT_EQ(best.tokens, (std::vector<int>{SpecialIds::kUnk, SpecialIds::kUnk}));
  EXPECT_EQ(best.pieces, (std::vector<std::string>{pieces[0], pieces[1]}));
  EXPECT_EQ(best.text, tok.decode_pieces({pieces[0], pieces[1]}));

  // Attention JSON: source pieces + </s>, target pieces + </s>, one row per target step.
  const auto json = nlohmann::json::parse(format_attention_json(out[0], 4, tok));
  EXPECT_EQ(json["index"], 4);
  EXPECT_EQ(json["source"].size(), pieces.size() + 1);
  EXPECT_EQ(json["source"].back(), "</s>");
  ASSERT_EQ(json["attention"].size(), 3u);
  EXPECT_EQ(json["attention"][1][1], 1.0);
  // Alignment: target subword t attends to source subword t; both map to their words.
  const bool second_starts_word = pieces[1].rfind("\xE2\x96\x81", 0) == 0;
  EXPECT_EQ(format_alignment(out[0], tok), second_starts_word ? "0-0 1-1\n" : "0-0\n");
  EXPECT_EQ(format_translation(out[0], 0, /*scores=*/false, /*n_best=*/false), best.text + "\n");
}

TEST(Translator, FormatsScoresAndNBestLines) {
  Translation empty;
  EXPECT_EQ(format_translation(empty, 3, false, false), "\n");
  EXPECT_EQ(format_translation(empty, 3, true, false), "0.000000\t\n");
  EXPECT_EQ(format_translation(empty, 3, false, true), "3 |||  ||| log_prob=0.000000 finished=1 ||| 0.000000\n");
  Translation two;
  two.hypotheses.resize(2);
  two.hypotheses[0].text = "a b";
  two.hypotheses[0].score = -0.5;
  two.hypotheses[0].log_prob = -1.25;
  two.hypotheses[1].text = "a";
  two.hypotheses[1].score = -0.75;
  two.hypotheses[1].log_prob = -0.75;
  two.hypotheses[1].finished = false;
  EXPECT_EQ(format_translation(two, 0, true, false), "-0.500000\ta b\n");
  EXPECT_EQ(format_translation(two, 7, false, true),
            "7 ||| a b ||| log_prob=-1.250000 finished=1 ||| -0.500000\n"
            "7 ||| a ||| log_prob=-0.750000 finished=0 ||| -0.750000\n");
}

TEST(Translator, OptionsAreValidated) {
  const Tokenizer& tok = test::toy_tokenizer();
  const auto model = random_model(tok);
  TranslateOptions o = options(1);
  o.max_tokens = 0;
  EXPECT_THROW_WITH(Translator(*model, tok, tok, o, at::kCPU), ConfigError, "batch-tokens must be >= 1");
  o = options(1);
  o.max_source_length = 0;
  EXPECT_THROW_WITH(Translator(*model, tok, tok, o, at::kCPU), ConfigError, "max-source-length");
  EXPECT_THROW_WITH(parse_enum<LongInputPolicy>("drop"), ConfigError, "truncate or reject");
}

// A model without attention translates, and refuses every option that reads attention weights,
// before any sentence is searched; search functions called directly refuse them too.
TEST(Translator, ModelWithoutAttentionRefusesAttentionOptions) {
  const Tokenizer& tok = test::toy_tokenizer();
  const auto model = random_model(tok, AttentionType::none);
  EXPECT_FALSE(model->has_attention());
  const std::vector<Translation> out = Translator(*model, tok, tok, options(3), at::kCPU).translate(kSentences);
  ASSERT_EQ(out.size(), kSentences.size());
  EXPECT_FALSE(out[0].hypotheses.at(0).attention.defined());
  TranslateOptions o = options(3);
  o.replace_unknown = true;
  EXPECT_THROW_WITH(Translator(*model, tok, tok, o, at::kCPU), ConfigError, "replace-unk", "attention = none");
  o = options(3);
  o.search.coverage_beta = 0.2;
  EXPECT_THROW_WITH(Translator(*model, tok, tok, o, at::kCPU), ConfigError, "coverage-beta", "attention = none");
  for (const std::int64_t beam : {1, 3}) {
    o = options(beam);
    o.search.keep_attention = true;
    EXPECT_THROW_WITH(Translator(*model, tok, tok, o, at::kCPU), ConfigError, "attention-output", "attention = none");
    const at::Tensor source = at::tensor({5, 6, SpecialIds::kEos}, at::kLong).unsqueeze(0);
    const at::Tensor lengths = at::tensor({3}, at::kLong);
    const auto search = [&] {
      return beam == 1 ? greedy_search(*model, source, lengths, o.search).size()
                       : beam_search(*model, source, lengths, o.search).size();
    };
    EXPECT_THROW_WITH(search(), ConfigError, "attention = none");
  }
}

}  // namespace
}  // namespace nmt
