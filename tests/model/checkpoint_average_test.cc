// nmt-checkpoint average's library side: exact means, refusals naming the differing field.
#include "nmt/model/checkpoint_average.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/types.h>

#include <filesystem>

#include "nmt/core/error.h"
#include "tests/model/model_test_util.h"
#include "tests/test_util.h"

namespace nmt {
namespace {
namespace fs = std::filesystem;

ModelConfig config_for(const Tokenizer& tok, AttentionType attention = AttentionType::general) {
  ModelConfig config = test::tiny_config(attention, DecoderStyle::luong);
  config.source_vocab_size = config.target_vocab_size = tok.vocab_size();
  return config;
}

// A model whose every parameter is `value`, saved to `path`.
void save_constant(const std::string& path, const Tokenizer& tok, float value, const std::string& training = "") {
  Seq2Seq model(config_for(tok));
  torch::NoGradGuard no_grad;
  for (auto& p : model->parameters()) p.fill_(value);
  save_checkpoint(path, model, tok, tok, training);
}

std::map<std::string, at::Tensor> parameters_of(const std::string& path) {
  std::map<std::string, at::Tensor> out;
  for (const auto& p : load_checkpoint(path).model->named_parameters()) out[p.key()] = p.value();
  return out;
}

TEST(CheckpointAverage, TwoCopiesOfACheckpointGiveItBackBitForBit) {
  test::TempDir dir;
  const Tokenizer& tok = test::toy_tokenizer();
  at::manual_seed(3);
  Seq2Seq model(config_for(tok));
  save_checkpoint(dir.path("a.pt"), model, tok, tok, "seed = 3\n");
  fs::copy_file(dir.path("a.pt"), dir.path("b.pt"));
  average_checkpoints({dir.path("a.pt"), dir.path("b.pt"), dir.path("a.pt")}, dir.path("avg.pt"));
  const auto original = parameters_of(dir.path("a.pt"));
  const auto averaged = parameters_of(dir.path("avg.pt"));
  ASSERT_EQ(original.size(), averaged.size());
  for (const auto& [name, value] : original) EXPECT_TRUE(at::equal(value, averaged.at(name))) << name;
  const Checkpoint loaded = load_checkpoint(dir.path("avg.pt"));
  EXPECT_EQ(loaded.source_tokenizer.model_bytes(), tok.model_bytes());
  EXPECT_NE(loaded.training_config.find("# nmt-checkpoint average of 3 checkpoint(s): " + dir.path("a.pt")),
            std::string::npos);
  EXPECT_NE(loaded.training_config.find("\nseed = 3\n"), std::string::npos) << "the first input's configuration follows";
}

TEST(CheckpointAverage, MeansOfKnownTensorsAreExact) {
  test::TempDir dir;
  const Tokenizer& tok = test::toy_tokenizer();
  save_constant(dir.path("1.pt"), tok, 1.0f);
  save_constant(dir.path("2.pt"), tok, 2.0f);
  save_constant(dir.path("4.pt"), tok, 4.0f);
  save_constant(dir.path("tiny.pt"), tok, 1e-30f);
  average_checkpoints({dir.path("1.pt"), dir.path("2.pt"), dir.path("4.pt")}, dir.path("avg.pt"));
  const float expected = static_cast<float>(7.0 / 3.0);  // summed and divided in float64, rounded once
  for (const auto& [name, value] : parameters_of(dir.path("avg.pt"))) {
    EXPECT_TRUE(at::equal(value, at::full_like(value, expected))) << name;
  }
  // Tiny values keep every bit through the float64 sum and division.
  average_checkpoints({dir.path("tiny.pt"), dir.path("tiny.pt")}, dir.path("tiny-avg.pt"));
  for (const auto& [name, value] : parameters_of(dir.path("tiny-avg.pt"))) {
    EXPECT_TRUE(at::equal(value, at::full_like(value, 1e-30f))) << name;
  }
}

TEST(CheckpointAverage, RefusalsNameWhatDiffers) {
  test::TempDir dir;
  const Tokenizer& tok = test::toy_tokenizer(500);
  const Tokenizer& other = test::toy_tokenizer(300);
  save_constant(dir.path("a.pt"), tok, 1.0f);
  {
    Seq2Seq dot(config_for(tok, AttentionType::dot));
    save_checkpoint(dir.path("dot.pt"), dot, tok, tok);
    ModelConfig config = config_for(tok);
    config.dropout = 0.5;  // not the architecture: averaging it is fine
    Seq2Seq dropout(config);
    save_checkpoint(dir.path("dropout.pt"), dropout, tok, tok);
    config = config_for(tok);
    config.source_vocab_size = other.vocab_size();
    Seq2Seq other_source(config);
    save_checkpoint(dir.path("other-source.pt"), other_source, other, tok);
  }
  EXPECT_THROW_WITH(average_checkpoints({dir.path("a.pt"), dir.path("dot.pt")}, dir.path("out.pt")), ConfigError,
                    "cannot average " + dir.path("dot.pt"), "model.attention: general in " + dir.path("a.pt"),
                    "dot in " + dir.path("dot.pt"));
  EXPECT_THROW_WITH(average_checkpoints({dir.path("a.pt"), dir.path("other-source.pt")}, dir.path("out.pt")),
                    ConfigError, "model.source_vocab_size: 500 in");
  EXPECT_FALSE(fs::exists(dir.path("out.pt"))) << "nothing is written when refusing";
  average_checkpoints({dir.path("a.pt"), dir.path("dropout.pt")}, dir.path("out.pt"));
  EXPECT_THROW_WITH(average_checkpoints({dir.path("a.pt")}, dir.path("out.pt")), IoError, "it exists", "--force");
  average_checkpoints({dir.path("a.pt"), dir.path("out.pt")}, dir.path("out.pt"), /*replace=*/true);
  EXPECT_THROW_WITH(average_checkpoints({}, dir.path("x.pt")), ConfigError, "at least one checkpoint");
  EXPECT_THROW_WITH(average_checkpoints({dir.path("missing.pt")}, dir.path("x.pt")), IoError, "missing.pt");
  // The same vocabulary size, another subword model.
  Checkpoint a = load_checkpoint(dir.path("a.pt"));
  Checkpoint b = load_checkpoint(dir.path("a.pt"));
  b.source_tokenizer = test::toy_tokenizer(300);
  EXPECT_NE(checkpoint_mismatch(a, "a", b, "b").find("source subword model: a and b have different ones"),
            std::string::npos);
  EXPECT_EQ(checkpoint_mismatch(a, "a", b, "b", /*with_source=*/false), "");
  b.target_tokenizer = test::toy_tokenizer(300);
  EXPECT_NE(checkpoint_mismatch(a, "a", b, "b", false).find("target subword model"), std::string::npos);
}

}  // namespace
}  // namespace nmt
