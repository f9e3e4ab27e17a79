// The inference model with int8 products (inference_precision.h): every architecture runs with any
// group of its products in int8, stays close to float32, and a sentence gets the same bits alone
// as in a batch; a shortlist's int8 rows are the whole layer's.
#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <gtest/gtest.h>
#include <torch/nn/functional/loss.h>
#include <torch/optim/adam.h>

#include <cstring>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "nmt/core/error.h"
#include "nmt/eval/bleu.h"
#include "nmt/model/inference/inference_model.h"
#include "nmt/model/seq2seq.h"
#include "nmt/search/beam_search.h"
#include "nmt/search/greedy_search.h"
#include "tests/model/model_test_util.h"
#include "tests/search/steps_only.h"

// A namespace of its own: the unity build puts this file in one unit with others.
namespace nmt::int8_inference_test {
namespace {

const c10::Device kCpu(c10::kCPU);

class Int8EveryArchitecture : public ::testing::TestWithParam<test::Architecture> {
 protected:
  ModelConfig config() const { return test::architecture_config(GetParam()); }
};

std::string combination_name(const ::testing::TestParamInfo<test::Architecture>& info) {
  return test::architecture_name(info.param);
}

// Three teacher-forced steps of `model` over `batch`: the third step's output.
StepOutput third_step(const InferenceModel& model, const Batch& batch) {
  DecoderStatePtr state = model.encode(batch.source, batch.source_lengths);
  for (std::int64_t t = 0; t < 2; ++t) state = model.step(*state, batch.target_in.select(1, t)).state;
  return model.step(*state, batch.target_in.select(1, 2));
}

TEST_P(Int8EveryArchitecture, EachGroupRunsAndStaysCloseToFloat) {
  const ModelConfig c = config();
  at::manual_seed(5);
  Seq2Seq model(c);
  model->eval();
  c10::NoGradGuard no_grad;
  const Batch batch = test::varied_batch(c);
  const StepOutput reference = third_step(*model->for_inference(kCpu), batch);
  for (const std::string groups : {"output", "decoder", "attention", "encoder", "memory", "all"}) {
    const auto int8 = model->for_inference(kCpu, InferencePrecision::parse(groups, "groups"));
    EXPECT_EQ(int8->precision().describe(), groups == std::string("all") ? "output,decoder,attention,encoder,memory" : groups);
    const StepOutput step = third_step(*int8, batch);
    // Quantization moves a product by about 1 % of its inputs' scale: a few hundredths of a nat here.
    const double log_prob_error = (step.log_probs - reference.log_probs).abs().max().item<double>();
    EXPECT_LT(log_prob_error, 0.05) << groups;
    EXPECT_TRUE(at::allclose(step.log_probs.exp().sum(-1), at::ones({batch.size()}), 1e-5, 1e-5)) << groups;
    if (c.has_attention()) {
      EXPECT_LT((step.attention - reference.attention).abs().max().item<double>(), 0.05) << groups;
    }
  }
  // With no group in int8 it is the float32 model, bit for bit.
  const StepOutput none = third_step(*model->for_inference(kCpu, InferencePrecision::parse("none", "groups")), batch);
  EXPECT_TRUE(at::equal(none.log_probs, reference.log_probs));
}

TEST_P(Int8EveryArchitecture, ASentenceGetsTheSameBitsAloneAsInTheBatch) {
  const ModelConfig c = config();
  at::manual_seed(6);
  Seq2Seq model(c);
  model->eval();
  c10::NoGradGuard no_grad;
  const auto int8 = model->for_inference(kCpu, InferencePrecision::of(Precision::int8));
  const auto source = test::random_sequences({9, 4, 6, 2}, static_cast<int>(c.source_vocab_size), 7);
  const auto target = test::random_sequences({3, 8, 5, 6}, static_cast<int>(c.target_vocab_size), 8);
  const auto corpus = ParallelCorpus::from_sequences(source, target);
  const Batch batch = make_batch(corpus, {0, 1, 2, 3});
  const StepOutput together = third_step(*int8, batch);
  SearchOptions greedy;
  greedy.beam_size = 1;
  const std::vector<Hypothesis> searched = greedy_search(*int8, batch.source, batch.source_lengths, greedy);
  for (std::int64_t row = 0; row < batch.size(); ++row) {
    const Batch alone = make_batch(corpus, {batch.indices[static_cast<std::size_t>(row)]});
    const StepOutput single = third_step(*int8, alone);
    EXPECT_TRUE(at::equal(together.log_probs[row], single.log_probs[0])) << "row " << row;
    const std::vector<Hypothesis> one = greedy_search(*int8, alone.source, alone.source_lengths, greedy);
    EXPECT_EQ(one[0].tokens, searched[static_cast<std::size_t>(row)].tokens) << "row " << row;
    EXPECT_EQ(one[0].log_prob, searched[static_cast<std::size_t>(row)].log_prob) << "row " << row;
  }
}

// Greedy search with the model choosing each row's piece from its logits (best_of_log_softmax)
// gives what ranking the written log-probabilities gives: the same pieces, the same score bits and
// attention, in float32 and int8.
TEST_P(Int8EveryArchitecture, GreedyChoosesFromTheLogitsAsFromTheLogProbabilities) {
  const ModelConfig c = config();
  at::manual_seed(7);
  Seq2Seq model(c);
  model->eval();
  c10::NoGradGuard no_grad;
  const Batch batch = test::varied_batch(c);
  SearchOptions options;
  options.keep_attention = c.has_attention();
  for (const Precision precision : {Precision::float32, Precision::int8}) {
    const auto inference = model->for_inference(kCpu, InferencePrecision::of(precision));
    const DecoderStatePtr state = inference->encode(batch.source, batch.source_lengths);
    const BestStep chosen = inference->best_step(*state, batch.target_in.select(1, 0), at::zeros({batch.size()}));
    ASSERT_EQ(chosen.ids.size(), static_cast<std::size_t>(batch.size())) << "the model chose on the CPU";
    const auto fast = greedy_search(*inference, batch.source, batch.source_lengths, options);
    const auto plain = greedy_search(test::StepsOnly(*inference), batch.source, batch.source_lengths, options);
    ASSERT_EQ(fast.size(), plain.size());
    for (std::size_t i = 0; i < fast.size(); ++i) {
      const std::string what = std::string(name_of(precision)) + ", sentence " + std::to_string(i);
      EXPECT_EQ(fast[i].tokens, plain[i].tokens) << what;
      EXPECT_EQ(fast[i].finished, plain[i].finished) << what;
      EXPECT_EQ(std::memcmp(&fast[i].log_prob, &plain[i].log_prob, sizeof(double)), 0) << what;
      if (options.keep_attention) {  // braces: EXPECT_TRUE is an if/else (GCC 14's -Wdangling-else)
        EXPECT_TRUE(at::equal(fast[i].attention, plain[i].attention)) << what;
      }
    }
  }
}

// Beam search with the model ranking each sentence's candidates from its logits (ranked_step:
// log_softmax_normalisers and top_of_rows, 128-value blocks passed over on their maxima) gives what
// ranking the written log-probabilities gives: the same hypotheses, the same score bits and
// attention, in float32 and int8. A target vocabulary of 300: two whole blocks and a partial one.
TEST_P(Int8EveryArchitecture, BeamRanksFromTheLogitsAsFromTheLogProbabilities) {
  ModelConfig c = config();
  c.target_vocab_size = 300;
  at::manual_seed(8);
  Seq2Seq model(c);
  model->eval();
  c10::NoGradGuard no_grad;
  const Batch batch = test::varied_batch(c);
  SearchOptions options;
  options.beam_size = 5;
  options.n_best = 3;
  options.keep_attention = c.has_attention();
  for (const Precision precision : {Precision::float32, Precision::int8}) {
    const auto inference = model->for_inference(kCpu, InferencePrecision::of(precision));
    const DecoderStatePtr state = inference->encode(batch.source, batch.source_lengths);
    const std::vector<std::int64_t> groups(static_cast<std::size_t>(batch.size()), 1);
    const RankedStep ranked = inference->ranked_step(*state, batch.target_in.select(1, 0), at::zeros({batch.size()}),
                                                     groups, 10);
    ASSERT_EQ(ranked.ranked.size(), groups.size()) << "the model ranked on the CPU";
    const auto fast = beam_search(*inference, batch.source, batch.source_lengths, options);
    const auto plain = beam_search(test::StepsOnly(*inference), batch.source, batch.source_lengths, options);
    ASSERT_EQ(fast.size(), plain.size());
    for (std::size_t i = 0; i < fast.size(); ++i) {
      ASSERT_EQ(fast[i].size(), plain[i].size()) << "sentence " << i;
      for (std::size_t n = 0; n < fast[i].size(); ++n) {
        const std::string what =
            std::string(name_of(precision)) + ", sentence " + std::to_string(i) + ", hypothesis " + std::to_string(n);
        EXPECT_EQ(fast[i][n].tokens, plain[i][n].tokens) << what;
        EXPECT_EQ(fast[i][n].finished, plain[i][n].finished) << what;
        EXPECT_EQ(std::memcmp(&fast[i][n].log_prob, &plain[i][n].log_prob, sizeof(double)), 0) << what;
        EXPECT_EQ(std::memcmp(&fast[i][n].score, &plain[i][n].score, sizeof(double)), 0) << what;
        if (options.keep_attention) {
          EXPECT_TRUE(at::equal(fast[i][n].attention, plain[i][n].attention)) << what;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, Int8EveryArchitecture,
                         ::testing::Combine(::testing::Values(AttentionType::bahdanau, AttentionType::dot,
                                                              AttentionType::general, AttentionType::concat,
                                                              AttentionType::none),
                                            ::testing::Values(DecoderStyle::bahdanau, DecoderStyle::luong),
                                            ::testing::Values(1, 2), ::testing::Values(test::AttentionKind{})),
                         combination_name);
INSTANTIATE_TEST_SUITE_P(Kinds, Int8EveryArchitecture,
                         ::testing::Combine(::testing::Values(AttentionType::general), ::testing::Values(DecoderStyle::luong),
                                            ::testing::Values(1), ::testing::ValuesIn(test::other_attention_kinds())),
                         combination_name);

// A small trained model: a tiny model learns to copy sequences from 160 pairs; on 60 held-out
// sources greedy search with every group in int8 loses at most 1 BLEU against float32 (token ids
// as words), and gains at most 2: on 60 sentences a few changed choices move BLEU by about one either
// way, and a larger gain would say the two forms no longer compute the same model. The model must
// have learnt the task (float32 BLEU above 60), or the comparison would say nothing. Measured:
// 86.44 (float32) and 86.75 (int8 products) after 100 steps (200 gave 88.00 and 88.00 in twice the
// time); 87.51 with the memory group's int8 positions as well.
TEST(Int8InferenceModel, ASmallTrainedModelTranslatesWithinOneBleuOfFloat) {
  ModelConfig c = test::tiny_config(AttentionType::general, DecoderStyle::luong);
  c.embedding_size = c.encoder_hidden_size = c.decoder_hidden_size = c.attention_size = 32;
  c.source_vocab_size = c.target_vocab_size = 24;
  std::vector<int> lengths;
  for (int i = 0; i < 220; ++i) lengths.push_back(3 + (i * 7) % 6);
  const auto sources = test::random_sequences(lengths, static_cast<int>(c.source_vocab_size), 31);
  const auto& targets = sources;
  const auto corpus = ParallelCorpus::from_sequences(sources, targets);
  std::vector<std::size_t> train(160), held_out(60);
  std::iota(train.begin(), train.end(), 0);
  std::iota(held_out.begin(), held_out.end(), 160);
  const Batch batch = make_batch(corpus, train);
  at::manual_seed(8);
  Seq2Seq model(c);
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(0.02));
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    const auto out = model->forward(batch.source, batch.source_lengths, batch.target_in);
    torch::nn::functional::cross_entropy(out.logits.reshape({-1, c.target_vocab_size}), batch.target_out.reshape(-1),
                                         torch::nn::functional::CrossEntropyFuncOptions().ignore_index(SpecialIds::kPad))
        .backward();
    optimizer.step();
  }
  model->eval();
  c10::NoGradGuard no_grad;
  const Batch test_batch = make_batch(corpus, held_out);
  const auto words = [](const auto& ids) {
    std::string text;
    for (const auto id : ids) text += (text.empty() ? "" : " ") + std::to_string(id);
    return text;
  };
  std::vector<std::string> references;
  for (const std::size_t i : test_batch.indices) references.push_back(words(targets[i]));  // the batch's order
  SearchOptions greedy;
  greedy.beam_size = 1;
  const auto bleu_of = [&](const InferenceModel& inference) {
    std::vector<std::string> hypotheses;
    for (const Hypothesis& h : greedy_search(inference, test_batch.source, test_batch.source_lengths, greedy)) {
      hypotheses.push_back(words(h.tokens));
    }
    BleuOptions options;
    options.tokenize = BleuTokenizer::none;
    return corpus_bleu(hypotheses, {references}, options).score;
  };
  const double float_bleu = bleu_of(*model->for_inference(kCpu));
  const double int8_bleu = bleu_of(*model->for_inference(kCpu, InferencePrecision::of(Precision::int8)));
  EXPECT_GT(float_bleu, 60.0) << "the model did not learn the task";
  EXPECT_GE(int8_bleu, float_bleu - 1.0);
  EXPECT_LE(int8_bleu, float_bleu + 2.0);
}

TEST(Int8InferenceModel, AShortlistsRowsAreTheWholeLayersRows) {
  const ModelConfig c = test::tiny_config(AttentionType::general, DecoderStyle::luong);
  at::manual_seed(7);
  Seq2Seq model(c);
  model->eval();
  c10::NoGradGuard no_grad;
  InferencePrecision output_only;
  output_only.output = true;
  const auto int8 = model->for_inference(kCpu, output_only);
  const Batch batch = test::varied_batch(c);
  const at::Tensor every = at::arange(c.target_vocab_size, at::kLong), some = at::tensor({0, 3, 5, 17, 40}, at::kLong);
  const auto state = int8->encode(batch.source, batch.source_lengths);
  const at::Tensor previous = batch.target_in.select(1, 0);
  const at::Tensor whole = int8->step_logits(*state, previous, *int8->output_subset(every)).logits;
  const at::Tensor part = int8->step_logits(*state, previous, *int8->output_subset(some)).logits;
  EXPECT_TRUE(at::equal(part, whole.index_select(1, some)));
  // And the whole subset's logits are the layer's: step()'s log-softmax of them.
  EXPECT_TRUE(at::allclose(int8->step(*state, previous).log_probs, whole.log_softmax(-1), 1e-6, 1e-6));
}

TEST(Int8InferenceModel, GroupsParseAndBadOnesAreNamed) {
  EXPECT_EQ(InferencePrecision::parse("", "--int8").describe(), "none");
  EXPECT_EQ(InferencePrecision::parse("none", "--int8").describe(), "none");
  EXPECT_EQ(InferencePrecision::parse("encoder,output", "--int8").describe(), "output,encoder");
  EXPECT_FALSE(InferencePrecision::of(Precision::float32).any());
  EXPECT_TRUE(InferencePrecision::of(Precision::int8).any());
  try {
    InferencePrecision::parse("output,softmax", "--int8-products");
    ADD_FAILURE() << "softmax was accepted";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "--int8-products: 'softmax' is not one of output, decoder, attention, encoder, memory, all, none");
  }
}

}  // namespace
}  // namespace nmt::int8_inference_test
