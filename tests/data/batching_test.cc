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
  std::int64_t step_batches = 1;
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
  options.step_batches = c.step_batches;
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
                                           PlanCase{800, 0, 0, false}, PlanCase{100000, 0, 0, true},
                                           PlanCase{1000, 0, 0, true, 3}, PlanCase{500, 7, 64, true, 2}),
                         [](const ::testing::TestParamInfo<PlanCase>& param_info) {
                           const PlanCase& c = param_info.param;
                           return "tokens" + std::to_string(c.max_tokens) + "_sentences" +
                                  std::to_string(c.max_sentences) + "_pool" + std::to_string(c.sort_pool_size) +
                                  (c.shuffle ? "_shuffled" : "_ordered") +
                                  (c.step_batches > 1 ? "_step" + std::to_string(c.step_batches) : "");
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

// The longest pair's cost in a batch: the length class bucketing cut it from.
std::int64_t batch_length(const ParallelCorpus& corpus, const std::vector<std::size_t>& batch) {
  std::int64_t longest = 0;
  for (const auto i : batch) longest = std::max(longest, pair_tokens(corpus, i));
  return longest;
}

// With step_batches k the plan holds the batches of k = 1 (the same pairs, the same cuts), moved
// in runs of k that were cut next to each other: a step's batches are neighbours in length, where
// k = 1 puts any two batches side by side.
TEST(BatchPlan, StepsOfSeveralBatchesTakeNeighboursInLength) {
  const auto corpus = random_corpus(3000, 80);
  BatchingOptions options;
  options.max_tokens = 800;
  const auto singles = plan_epoch(corpus, options, 0);
  for (const std::int64_t k : {2, 3}) {
    options.step_batches = k;
    const auto runs = plan_epoch(corpus, options, 0);
    auto sorted_singles = singles, sorted_runs = runs;
    std::sort(sorted_singles.begin(), sorted_singles.end());
    std::sort(sorted_runs.begin(), sorted_runs.end());
    ASSERT_EQ(sorted_runs, sorted_singles) << "k " << k << ": the same batches";
    ASSERT_NE(runs, singles);
    const std::size_t full = runs.size() / static_cast<std::size_t>(k) * static_cast<std::size_t>(k);
    double spread_runs = 0, spread_singles = 0;
    for (std::size_t start = 0; start < full; start += static_cast<std::size_t>(k)) {
      std::int64_t low = INT64_MAX, high = 0, low1 = INT64_MAX, high1 = 0;
      for (std::size_t i = start; i < start + static_cast<std::size_t>(k); ++i) {
        const std::int64_t length = batch_length(corpus, runs[i]), length1 = batch_length(corpus, singles[i]);
        if (i > start) {
          EXPECT_LE(batch_length(corpus, runs[i - 1]), length) << "a run keeps the cut order";
        }
        low = std::min(low, length), high = std::max(high, length);
        low1 = std::min(low1, length1), high1 = std::max(high1, length1);
      }
      EXPECT_LE(high - low, 8) << "k " << k << ", run at " << start;
      spread_runs += static_cast<double>(high - low);
      spread_singles += static_cast<double>(high1 - low1);
    }
    EXPECT_LT(spread_runs * 20, spread_singles) << "k " << k;  // 33 and 42 against ~1900
    // The remainder ends the plan: the longest batches, cut last.
    ASSERT_NE(full, runs.size()) << "k " << k << ": choose a corpus with a remainder";
    std::int64_t longest_in_runs = 0;
    for (std::size_t i = 0; i < full; ++i) longest_in_runs = std::max(longest_in_runs, batch_length(corpus, runs[i]));
    for (std::size_t i = full; i < runs.size(); ++i) EXPECT_GE(batch_length(corpus, runs[i]), longest_in_runs);
    EXPECT_EQ(plan_epoch(corpus, options, 0), runs) << "deterministic";
    EXPECT_NE(plan_epoch(corpus, options, 1), runs);
  }
}

TEST(BatchPlan, GoldenOrderOfRunsIsPortable) {
  const auto corpus = ParallelCorpus::from_sequences({{4}, {4, 4}, {4}, {4, 4, 4}, {4}, {4, 4}, {4}, {4, 4, 4, 4}},
                                                     {{5}, {5}, {5, 5}, {5}, {5}, {5, 5}, {5}, {5}});
  BatchingOptions options;
  options.max_tokens = 5;
  options.seed = 42;
  options.step_batches = 2;
  // Costs 2, 3, 3, 4, 2, 3, 2, 5: cut as {0, 6} {4} | {2} {1} | {5} {3} | {7} (ties in shuffled
  // order); three runs of two are shuffled, the remainder (the longest) ends the plan.
  const std::vector<std::vector<std::size_t>> expected = {{2}, {1}, {0, 6}, {4}, {5}, {3}, {7}};
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
  BatchPosition no_steps = good;
  no_steps.step_batches = 0;
  EXPECT_THROW_WITH(it.restore(no_steps), DataError, "step_batches 0 (must be >= 1)");
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
  options.sort_pool_size = 0;
  options.step_batches = 0;
  EXPECT_THROW_WITH(options.validate(), ConfigError, "batches per step must be >= 1, got 0");
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

// With step_batches k, steps of k batches from an epoch's start take one run each; the epoch's last
// step takes the remainder and the next step starts the next epoch, so runs stay aligned.
TEST(EpochBatches, AStepOfRunsEndsAtItsEpochsEnd) {
  const auto corpus = random_corpus(410, 30);
  BatchingOptions options;
  options.max_tokens = 120;
  options.step_batches = 3;
  std::vector<std::vector<std::vector<std::size_t>>> plans;
  for (std::int64_t epoch = 0; epoch < 3; ++epoch) plans.push_back(plan_epoch(corpus, options, epoch));

  const int world = 2;  // a step of 3 batches: rank 0 makes two, rank 1 one
  std::vector<EpochBatches> ranks;
  for (int r = 0; r < world; ++r) ranks.emplace_back(corpus, options, 3);
  bool saw_remainder = false;
  for (std::size_t epoch = 0; epoch < plans.size(); ++epoch) {
    const auto& plan = plans[epoch];
    for (std::size_t start = 0; start < plan.size(); start += 3) {
      const std::size_t taken = std::min<std::size_t>(3, plan.size() - start);
      saw_remainder = saw_remainder || taken < 3;
      const StepShare zero = ranks[0].take_step(3, world, 0), one = ranks[1].take_step(3, world, 1);
      ASSERT_EQ(zero.taken, static_cast<std::int64_t>(taken)) << "epoch " << epoch << ", batch " << start;
      EXPECT_EQ(ranks[0].position().epoch, static_cast<std::int64_t>(epoch));
      EXPECT_EQ(ranks[0].position().batch, static_cast<std::int64_t>(start + taken));
      EXPECT_EQ(ranks[0].position().step_batches, 3);
      std::int64_t tokens = 0;
      for (std::size_t i = start; i < start + taken; ++i) tokens += count_target_tokens(corpus, plan[i]);
      EXPECT_EQ(zero.target_tokens, tokens);
      EXPECT_EQ(one.target_tokens, tokens);
      ASSERT_EQ(zero.batches.size() + one.batches.size(), taken);
      EXPECT_TRUE(at::equal(zero.batches[0].source, make_batch(corpus, plan[start]).source));
      if (taken > 1) {
        EXPECT_TRUE(at::equal(one.batches[0].source, make_batch(corpus, plan[start + 1]).source));
      }
    }
  }
  EXPECT_TRUE(saw_remainder) << "choose a corpus whose plan is not a multiple of 3";
  EXPECT_TRUE(ranks[0].exhausted());
}

// A position carries the step_batches its epoch's plan was made with: a run resumed with another
// number of ranks or accumulate (or saved by nmt 0.1, before runs: it reads as 1) finishes its
// epoch on the saved plan, and the next epoch is planned with the new step_batches.
TEST(EpochBatches, ResumedWithAnotherStepSizeFinishesTheEpochOnItsPlan) {
  const auto corpus = random_corpus(300, 30);
  BatchingOptions two;
  two.max_tokens = 150;
  two.step_batches = 2;
  BatchingOptions one = two;
  one.step_batches = 1;
  EpochBatches first(corpus, two);
  for (int step = 0; step < 4; ++step) first.take_step(2, 1, 0);
  const std::string saved = first.position().to_json();
  EXPECT_NE(saved.find("\"step_batches\":2"), std::string::npos) << saved;

  EpochBatches resumed(corpus, one);
  resumed.restore(BatchPosition::from_json(saved));
  EXPECT_EQ(resumed.position(), first.position());
  const auto plan_two = plan_epoch(corpus, two, 0);
  for (std::size_t i = 8; i < plan_two.size(); ++i) ASSERT_EQ(resumed.next(), plan_two[i]) << "batch " << i;
  EXPECT_EQ(resumed.next(), plan_epoch(corpus, one, 1).front());
  EXPECT_EQ(resumed.position().step_batches, 1);

  // A position without step_batches (nmt 0.1) is one of a plan of single batches.
  std::string old = BatchPosition{0, 3, two.seed, two.digest(), corpus.fingerprint(), 1}.to_json();
  old.erase(old.find(",\"step_batches\":1"), std::string(",\"step_batches\":1").size());
  ASSERT_EQ(old.find("step_batches"), std::string::npos) << old;
  const BatchPosition from_old = BatchPosition::from_json(old);
  EXPECT_EQ(from_old.step_batches, 1);
  EpochBatches continued(corpus, two);
  continued.restore(from_old);
  EXPECT_EQ(continued.next(), plan_epoch(corpus, one, 0)[3]);
  EXPECT_THROW_WITH(BatchPosition::from_json(BatchPosition{0, 0, 1, 2, 3, 0}.to_json()), DataError,
                    "malformed batch position: step_batches 0");
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
