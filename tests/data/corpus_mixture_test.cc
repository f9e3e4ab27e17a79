#include "nmt/data/corpus_mixture.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "nmt/core/error.h"
#include "tests/test_util.h"

namespace nmt {
namespace {

// How often each corpus's pairs appear in an epoch: counts[s][i].
std::vector<std::vector<int>> pair_counts(const std::vector<MixtureCorpus>& corpora, const std::vector<std::size_t>& epoch) {
  std::vector<std::vector<int>> counts;
  std::vector<std::size_t> first;
  std::size_t offset = 0;
  for (const MixtureCorpus& c : corpora) {
    counts.emplace_back(c.pairs, 0);
    first.push_back(offset);
    offset += c.pairs;
  }
  for (const std::size_t index : epoch) {
    EXPECT_LT(index, offset);
    const auto s = static_cast<std::size_t>(std::upper_bound(first.begin(), first.end(), index) - first.begin()) - 1;
    ++counts[s][index - first[s]];
  }
  return counts;
}

TEST(CorpusMixture, QuotasShareTheEpochByWeightAndSumToIt) {
  // 100 + 300 pairs, weights 1 : 1: each gets half of the 400 samples.
  EXPECT_EQ(mixture_quotas({{100, 1}, {300, 1}}), (std::vector<std::size_t>{200, 200}));
  // Weights proportional to the sizes: each corpus exactly once.
  EXPECT_EQ(mixture_quotas({{100, 1}, {300, 3}}), (std::vector<std::size_t>{100, 300}));
  // 10 samples by 1 : 1 : 1 = 3.33 each: the remainder goes to the earliest of the equal fractions.
  EXPECT_EQ(mixture_quotas({{4, 1}, {3, 1}, {3, 1}}), (std::vector<std::size_t>{4, 3, 3}));
  // Largest remainder: 7 samples by 0.5 : 0.3 : 0.2 = 3.5, 2.1, 1.4 -> 4 (0.5), 2, 1 (0.4 < 0.5).
  EXPECT_EQ(mixture_quotas({{5, 0.5}, {1, 0.3}, {1, 0.2}}), (std::vector<std::size_t>{4, 2, 1}));
  // A large corpus with a tiny weight still sums exactly.
  const auto quotas = mixture_quotas({{1000000, 1e-9}, {3, 1}});
  EXPECT_EQ(quotas[0] + quotas[1], 1000003u);
  EXPECT_EQ(quotas[0], 0u);
}

TEST(CorpusMixture, RefusesWhatIsNoMixture) {
  EXPECT_THROW_WITH(mixture_quotas({}), ConfigError, "at least one corpus");
  EXPECT_THROW_WITH(mixture_quotas({{3, 1}, {0, 1}}), ConfigError, "corpus 2 of the mixture has no pairs");
  EXPECT_THROW_WITH(mixture_quotas({{3, 0}}), ConfigError, "weight must be a number > 0");
  EXPECT_THROW_WITH(mixture_quotas({{3, -1}}), ConfigError, "weight must be a number > 0");
  EXPECT_THROW_WITH(mixture_quotas({{3, std::numeric_limits<double>::quiet_NaN()}}), ConfigError, "weight");
}

TEST(CorpusMixture, AnEpochUpSamplesWholeRepeatsAndDrawsTheRestWithoutRepeats) {
  // 10 + 40 pairs at 1 : 1: corpus 1 gets 25 samples = every pair twice and 5 more, distinct;
  // corpus 2 gets 25 of its 40, distinct.
  const std::vector<MixtureCorpus> corpora = {{10, 1}, {40, 1}};
  const auto epoch = mixture_epoch(corpora, 7, 0);
  ASSERT_EQ(epoch.size(), 50u);
  EXPECT_TRUE(std::is_sorted(epoch.begin(), epoch.end()));
  const auto counts = pair_counts(corpora, epoch);
  EXPECT_EQ(std::accumulate(counts[0].begin(), counts[0].end(), 0), 25);
  EXPECT_EQ(std::count(counts[0].begin(), counts[0].end(), 3), 5);
  EXPECT_EQ(std::count(counts[0].begin(), counts[0].end(), 2), 5);
  EXPECT_EQ(std::accumulate(counts[1].begin(), counts[1].end(), 0), 25);
  EXPECT_EQ(std::count(counts[1].begin(), counts[1].end(), 1), 25);
  EXPECT_EQ(std::count(counts[1].begin(), counts[1].end(), 0), 15);
}

TEST(CorpusMixture, EpochsAreReproducibleAndDifferFromEachOther) {
  const std::vector<MixtureCorpus> corpora = {{30, 1}, {200, 1}};
  EXPECT_EQ(mixture_epoch(corpora, 1, 3), mixture_epoch(corpora, 1, 3));
  EXPECT_NE(mixture_epoch(corpora, 1, 3), mixture_epoch(corpora, 1, 4));
  EXPECT_NE(mixture_epoch(corpora, 1, 3), mixture_epoch(corpora, 2, 3));
  // Over many epochs, the down-sampled corpus's pairs are drawn evenly (each about 1/2 of the time).
  std::vector<int> drawn(200, 0);
  for (std::int64_t e = 0; e < 400; ++e) {
    for (const std::size_t i : mixture_epoch(corpora, 1, e)) {
      if (i >= 30) ++drawn[i - 30];
    }
  }
  for (const int n : drawn) {
    EXPECT_GT(n, 140);  // 400 epochs x 115/200 = 230 on average; binomial sd about 10
    EXPECT_LT(n, 320);
  }
}

TEST(CorpusMixture, ProportionalWeightsGiveEveryPairOnce) {
  const std::vector<MixtureCorpus> corpora = {{17, 17}, {5, 5}, {1, 1}};
  std::vector<std::size_t> all(23);
  std::iota(all.begin(), all.end(), 0);
  EXPECT_EQ(mixture_epoch(corpora, 9, 0), all);
  EXPECT_EQ(mixture_epoch({{23, 0.25}}, 9, 5), all);
}

}  // namespace
}  // namespace nmt
