#include "nmt/data/batching.h"
#include "nmt/data/epoch_batches.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "nmt/core/error.h"
#include "tests/test_util.h"

namespace nmt {
namespace {

// A corpus of `n` pairs with lengths spread over 1..max_length (fixed seed).
ParallelCorpus random_corpus(std::size_t n, int max_length, unsigned seed = 5) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> length(1, max_length), id(4, 99);
  std::vector<std::vector<int>> source(n), target(n);
  for (std::size_t i = 0; i < n; ++i) {
    source[i].resize(static_cast<std::size_t>(length(rng)));
    target[i].resize(static_cast<std::size_t>(length(rng)));
    for (auto& x : source[i]) x = id(rng);
    for (auto& y : target[i]) y = id(rng);
  }
  return ParallelCorpus::from_sequences(source, target);
}

std::int64_t batch_cost(const ParallelCorpus& corpus, const std::vector<std::size_t>& batch) {
  std::size_t source = 0, target = 0;
  for (const auto i : batch) {
    source = std::max(source, corpus.source(i).size + 1);
    target = std::max(target, corpus.target(i).size + 1);
  }
  return static_cast<std::int64_t>(batch.size() * std::max(source, target));
}

struct PlanCase {
  std::int64_t max_tokens, max_sentences, sort_pool_size;
  bool shuffle;
};

class PlanInvariants : public ::testing::TestWithParam<PlanCase> {};

TEST_P(PlanInvariants, EveryPairOnceAndNoBatchOverBudget) {
  const PlanCase c = GetParam();
  const auto corpus = random_corpus(1000, 60);
  BatchingOptions options;
  options.max_tokens = c.max_tokens;
  options.max_sentences = c.max_sentences;
  options.sort_pool_size = c.sort_pool_size;
  options.shuffle = c.shuffle;
  for (std::int64_t epoch = 0; epoch < 3; ++epoch) {
    const auto plan = plan_epoch(corpus, options, epoch);
    std::vector<int> seen(corpus.size(), 0);
    for (const auto& batch : plan) {
      ASSERT_FALSE(batch.empty());
      EXPECT_LE(batch_cost(corpus, batch), c.max_tokens);
      if (c.max_sentences > 0) {
        EXPECT_LE(static_cast<std::int64_t>(batch.size()), c.max_sentences);
      }
      for (const auto i : batch) ++seen[i];
    }
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; })) << "epoch " << epoch;
  }
}

INSTANTIATE_TEST_SUITE_P(Options, PlanInvariants,
                         ::testing::Values(PlanCase{2000, 0, 0, true}, PlanCase{61, 0, 0, true},
                                           PlanCase{500, 7, 0, true}, PlanCase{1000, 0, 64, true},
                                           PlanCase{800, 0, 0, false}, PlanCase{100000, 0, 0, true}),
                         [](const ::testing::TestParamInfo<PlanCase>& param_info) {
                           const PlanCase& c = param_info.param;
                           return "tokens" + std::to_string(c.max_tokens) + "_sentences" +
                                  std::to_string(c.max_sentences) + "_pool" + std::to_string(c.sort_pool_size) +
                                  (c.shuffle ? "_shuffled" : "_ordered");
                         });

TEST(BatchPlan, BucketsSimilarLengths) {
  const auto corpus = random_corpus(2000, 80);
  BatchingOptions options;
  options.max_tokens = 1500;
  std::size_t padded = 0, real = 0;  // per side, as the source and target tensors hold them
  for (const auto& batch : plan_epoch(corpus, options, 0)) {
    std::size_t source = 0, target = 0;
    for (const auto i : batch) {
      source = std::max(source, corpus.source(i).size + 1);
      target = std::max(target, corpus.target(i).size + 1);
      real += corpus.source(i).size + corpus.target(i).size + 2;
    }
    padded += (source + target) * batch.size();
  }
  // Independent uniform lengths 1..80 batched at random would pad about half of every tensor;
  // bucketing on the longer side still leaves the shorter side padded.
  EXPECT_LT(1.0 - static_cast<double>(real) / static_cast<double>(padded), 0.35);
}

TEST(BatchPlan, SameSeedSameOrderOtherSeedOrEpochDiffers) {
  const auto corpus = random_corpus(500, 30);
  BatchingOptions options;
  options.max_tokens = 300;
  const auto plan = plan_epoch(corpus, options, 0);
  EXPECT_EQ(plan, plan_epoch(corpus, options, 0));
  EXPECT_NE(plan, plan_epoch(corpus, options, 1));
  options.seed = 2;
  EXPECT_NE(plan, plan_epoch(corpus, options, 0));
}

TEST(BatchPlan, GoldenOrderIsPortable) {
  // The shuffle uses the toolkit's own generator, so this order is the same everywhere; if it
  // changes, resumed training runs would silently see other batches.
  const auto corpus = ParallelCorpus::from_sequences({{4}, {4, 4}, {4}, {4, 4, 4}, {4}, {4, 4}},
                                                     {{5}, {5}, {5, 5}, {5}, {5}, {5, 5}});
  BatchingOptions options;
  options.max_tokens = 6;
  options.seed = 42;
  // Costs (max side + 1): 2, 3, 3, 4, 2, 3; budget 6 fits two pairs of cost <= 3, one of cost 4.
  const std::vector<std::vector<std::size_t>> expected = {{5}, {2, 1}, {4, 0}, {3}};
  EXPECT_EQ(plan_epoch(corpus, options, 0), expected);
}

TEST(EpochBatches, RestoredPositionContinuesExactly) {
  const auto corpus = random_corpus(300, 40);
  BatchingOptions options;
  options.max_tokens = 400;
  EpochBatches reference(corpus, options);
  const std::size_t per_epoch = reference.batches_in_epoch();
  ASSERT_GT(per_epoch, 5u);
  // Stop at several points, including an epoch's last batch and the first batch of the next.
  for (const std::size_t stop : {std::size_t{0}, std::size_t{3}, per_epoch - 1, per_epoch, per_epoch + 2}) {
    EpochBatches first(corpus, options);
    for (std::size_t k = 0; k < stop; ++k) first.next();
    const std::string saved = first.position().to_json();

    EpochBatches resumed(corpus, options);
    resumed.restore(BatchPosition::from_json(saved));
    EXPECT_EQ(resumed.position(), first.position());
    for (std::size_t k = 0; k < 2 * per_epoch + 1; ++k) {
      ASSERT_EQ(resumed.next(), first.next()) << "stop " << stop << ", batch " << k;
    }
  }
}

TEST(EpochBatches, EpochsAdvance) {
  const auto corpus = random_corpus(50, 10);
  BatchingOptions options;
  options.max_tokens = 60;
  EpochBatches it(corpus, options);
  const std::size_t n = it.batches_in_epoch();
  for (std::size_t k = 0; k < n; ++k) {
    EXPECT_EQ(it.epoch(), 0);
    it.next();
  }
  // After the epoch's last batch the position says so; the next batch starts epoch 1.
  EXPECT_EQ(it.epoch(), 0);
  EXPECT_EQ(it.position().batch, static_cast<std::int64_t>(n));
  it.next();
  EXPECT_EQ(it.epoch(), 1);
  EXPECT_EQ(it.position().batch, 1);
}

TEST(EpochBatches, FailedRestoreLeavesTheIteratorAsItWas) {
  const auto corpus = random_corpus(100, 20);
  BatchingOptions options;
  options.max_tokens = 200;
  EpochBatches it(corpus, options);
  it.next();
  it.next();
  const BatchPosition before = it.position();
  BatchPosition past_end = before;
  past_end.epoch = 5;
  past_end.batch = 100000;
  EXPECT_THROW(it.restore(past_end), DataError);
  EXPECT_EQ(it.position(), before);
}

TEST(EpochBatches, RestoreRejectsForeignPositions) {
  const auto corpus = random_corpus(100, 20);
  BatchingOptions options;
  options.max_tokens = 200;
  EpochBatches it(corpus, options);
  const BatchPosition good = it.position();

  BatchPosition other_corpus = good;
  other_corpus.corpus_fingerprint ^= 1;
  EXPECT_THROW_WITH(it.restore(other_corpus), DataError, "another corpus");
  BatchPosition other_seed = good;
  other_seed.seed = 99;
  EXPECT_THROW_WITH(it.restore(other_seed), DataError, "seed 99");
  BatchPosition other_options = good;
  other_options.options_digest ^= 1;
  EXPECT_THROW_WITH(it.restore(other_options), DataError, "other batching options");
  BatchPosition past_end = good;
  past_end.batch = 100000;
  EXPECT_THROW_WITH(it.restore(past_end), DataError, "past the end of epoch 0");
  EXPECT_THROW_WITH(BatchPosition::from_json("{\"epoch\": 1}"), DataError, "malformed batch position");
  EXPECT_THROW_WITH(BatchPosition::from_json("not json"), DataError, "malformed batch position");

  options.max_tokens = 201;  // another plan: a position from the first must not apply
  EpochBatches changed(corpus, options);
  EXPECT_THROW_WITH(changed.restore(good), DataError, "other batching options");
}

TEST(EpochBatches, BudgetBelowLongestPairIsAConfigError) {
  const auto corpus = ParallelCorpus::from_sequences({{4, 4}, {4, 4, 4, 4, 4, 4, 4, 4, 4}}, {{5}, {5}});
  BatchingOptions options;
  options.max_tokens = 9;
  EXPECT_THROW_WITH(EpochBatches(corpus, options), ConfigError, "max tokens 9", "line 2", "10 tokens");
  options.max_tokens = 10;
  EXPECT_NO_THROW(EpochBatches(corpus, options));
}

TEST(BatchingOptions, Validation) {
  BatchingOptions options;
  options.max_tokens = 0;
  EXPECT_THROW_WITH(options.validate(), ConfigError, "max tokens");
  options.max_tokens = 10;
  options.max_sentences = -1;
  EXPECT_THROW_WITH(options.validate(), ConfigError, "max sentences");
  options.max_sentences = 0;
  options.sort_pool_size = -5;
  EXPECT_THROW_WITH(options.validate(), ConfigError, "sort pool size");
}

// Ranks take the same step and make disjoint shares: together, in order, the batches one process
// walking the same plan would take; the step's target tokens count every rank's batches.
TEST(EpochBatches, RanksShareEachStepAndTogetherTakeTheWholePlan) {
  const auto corpus = random_corpus(120, 15);
  BatchingOptions options;
  options.max_tokens = 150;
  EpochBatches alone(corpus, options, /*max_epochs=*/2);
  std::vector<Batch> expected;
  while (!alone.exhausted()) {
    StepShare one = alone.take_step(1, 1, 0);
    expected.push_back(std::move(one.batches.front()));
  }
  const int world = 3;
  std::vector<EpochBatches> ranks;
  for (int r = 0; r < world; ++r) ranks.emplace_back(corpus, options, 2);
  std::size_t next = 0;
  while (!ranks[0].exhausted()) {
    std::vector<StepShare> shares;
    for (int r = 0; r < world; ++r) shares.push_back(ranks[static_cast<std::size_t>(r)].take_step(2 * world, world, r));
    std::int64_t tokens = 0;
    for (std::int64_t k = 0; k < shares[0].taken; ++k) {
      const Batch& batch = shares[static_cast<std::size_t>(k % world)].batches[static_cast<std::size_t>(k / world)];
      ASSERT_LT(next, expected.size());
      EXPECT_TRUE(at::equal(batch.source, expected[next].source)) << "batch " << next;
      tokens += expected[next++].target_tokens;
    }
    for (const StepShare& share : shares) {
      EXPECT_EQ(share.target_tokens, tokens);
      EXPECT_EQ(share.taken, shares[0].taken);
    }
  }
  EXPECT_EQ(next, expected.size()) << "two epochs, then exhausted";
  EXPECT_EQ(ranks[0].take_step(4, world, 0).taken, 0);
}

// Each epoch batches the corpus made for it (as subword sampling makes one), and a restored
// position makes that epoch's corpus again.
TEST(EpochBatches, EachEpochBatchesItsOwnCorpus) {
  const auto base = random_corpus(60, 12);
  BatchingOptions options;
  options.max_tokens = 100;
  std::vector<std::int64_t> made;
  const auto corpus_for_epoch = [&](std::int64_t epoch) {
    made.push_back(epoch);
    return std::make_unique<ParallelCorpus>(
        random_corpus(static_cast<std::size_t>(60 + epoch), 12, /*seed=*/static_cast<unsigned>(100 + epoch)));
  };
  EpochBatches batches(base, options, 0, corpus_for_epoch);
  EXPECT_EQ(batches.corpus().size(), 60u);
  const std::size_t first_epoch = batches.batches_in_epoch();
  for (std::size_t k = 0; k <= first_epoch; ++k) batches.next();
  EXPECT_EQ(batches.epoch(), 1);
  EXPECT_EQ(batches.corpus().size(), 61u);
  EXPECT_EQ(batches.position().corpus_fingerprint, batches.corpus().fingerprint());
  const BatchPosition saved = batches.position();
  const std::vector<std::size_t> following = batches.next();
  EpochBatches resumed(base, options, 0, corpus_for_epoch);
  resumed.restore(saved);
  EXPECT_EQ(resumed.next(), following);
  EXPECT_EQ(made, (std::vector<std::int64_t>{0, 1, 0, 1}));
  // Starting at a position makes only that epoch's corpus (a training run's resume).
  EpochBatches started(base, options, 0, corpus_for_epoch, saved);
  EXPECT_EQ(started.position(), saved);
  EXPECT_EQ(started.next(), following);
  EXPECT_EQ(made, (std::vector<std::int64_t>{0, 1, 0, 1, 1}));
}

}  // namespace
}  // namespace nmt
