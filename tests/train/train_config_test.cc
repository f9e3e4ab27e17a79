#include "nmt/train/train_config.h"

#include <gtest/gtest.h>

#include "nmt/core/error.h"
#include "tests/test_util.h"

namespace nmt {
namespace {

TEST(TrainConfig, TheEffectiveConfigurationHasEveryOptionInSectionsInCanonicalForm) {
  TrainConfig config;
  config.schedule.lr = 0.5;
  config.valid.attention_maps = {};
  config.model.attention = AttentionType::none;
  const std::string toml = to_toml(config);
  EXPECT_EQ(toml.rfind("run-dir = \"runs/default\"\ndevice = \"auto\"\nthreads = 1\nblas-threads = 0\nseed = 1\ninit-from = \"\"\n\n[data]\n",
                       0),
            0u)
      << toml;
  for (const char* line : {"\n[optim]\noptimizer = \"adam\"\nlr = 0.5\n", "attention = \"none\"\n",
                           "attention-maps = \"none\"\n", "eps = 1e-08\n", "timeout = 300\n"}) {
    EXPECT_NE(toml.find(line), std::string::npos) << line << " in\n" << toml;
  }
  EXPECT_EQ(toml.find("resume"), std::string::npos) << "resume is a command, not a setting";
  // Options written only when set: absent at their empty value, there once given one.
  EXPECT_EQ(toml.find("word-dropout"), std::string::npos);
  EXPECT_EQ(toml.find("default-tag"), std::string::npos);
  config.train.word_dropout = 0.1;
  config.data.default_tag = "<2web>";
  const std::string set = to_toml(config);
  EXPECT_NE(set.find("\nword-dropout = 0.1\n"), std::string::npos) << set;
  EXPECT_NE(set.find("\ndefault-tag = \"<2web>\"\n"), std::string::npos) << set;
}

TEST(TrainConfig, RanksCompareEveryOptionButWhereARankRuns) {
  const TrainConfig base;
  const auto digests = shared_setup_digests(base);
  std::vector<std::string> sections;
  for (const auto& [section, digest] : digests) sections.push_back(section);
  EXPECT_EQ(sections, (std::vector<std::string>{"", "data", "model", "train", "optim", "schedule", "valid", "checkpoint"}));

  TrainConfig elsewhere = base;  // another machine: other paths, threads, run directory and [dist]
  elsewhere.run_dir = "/other/run";
  elsewhere.threads = 2;
  elsewhere.blas_threads = 3;
  elsewhere.data.train_source = "/mnt/train.es";
  elsewhere.data.dev_target = "/mnt/dev.en";
  elsewhere.data.target_spm = "/mnt/spm.en.model";
  elsewhere.dist.node_rank = 1;
  elsewhere.dist.timeout_s = 10;
  EXPECT_EQ(shared_setup_digests(elsewhere), digests);

  const auto differing = [&](const TrainConfig& other) {
    std::vector<std::string> out;
    const auto theirs = shared_setup_digests(other);
    for (std::size_t i = 0; i < digests.size(); ++i) {
      if (theirs[i].second != digests[i].second) out.push_back(theirs[i].first);
    }
    return out;
  };
  TrainConfig dropout = base;
  dropout.model.dropout = 0.1;
  EXPECT_EQ(differing(dropout), std::vector<std::string>{"model"});
  TrainConfig lr = base;
  lr.schedule.lr = 1e-3;  // [optim] lr lives in ScheduleOptions
  EXPECT_EQ(differing(lr), std::vector<std::string>{"optim"});
  TrainConfig resumed = base;
  resumed.resume = true;
  EXPECT_EQ(differing(resumed), std::vector<std::string>{""});
  TrainConfig seed = base;
  seed.seed = 2;
  EXPECT_EQ(differing(seed), std::vector<std::string>{""});
}

TEST(TrainConfig, AttentionMapFormatsAreTyped) {
  EXPECT_EQ(plot::ImageFormatChoice::parse("svg,PNG", "k").text(), "svg,png");
  EXPECT_TRUE(plot::ImageFormatChoice::parse("none", "k").none());
  EXPECT_EQ(plot::ImageFormatChoice{}.text(), "none");
  EXPECT_THROW_WITH(plot::ImageFormatChoice::parse("svg,svg", "valid.attention-maps"), ConfigError,
                    "valid.attention-maps: 'svg' twice");
  EXPECT_THROW_WITH(plot::ImageFormatChoice::parse("", "valid.attention-maps"), ConfigError, "valid.attention-maps");
}

}  // namespace
}  // namespace nmt
