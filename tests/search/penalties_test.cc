#include "nmt/search/penalties.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "nmt/core/error.h"
#include "nmt/data/tokenizer.h"
#include "tests/test_util.h"

namespace nmt {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

TEST(LengthPenalty, MatchesHandComputedValues) {
  EXPECT_EQ(length_penalty(LengthPenalty::none, 0.6, 7), 1.0);
  EXPECT_EQ(length_penalty(LengthPenalty::average, 0.6, 7), 7.0);
  // gnmt: ((5 + 7) / 6)^0.6 = 2^0.6 = 1.5157165665103980; ((5 + 1) / 6)^a = 1 for any a.
  EXPECT_NEAR(length_penalty(LengthPenalty::gnmt, 0.6, 7), 1.5157165665103980, 1e-15);
  EXPECT_EQ(length_penalty(LengthPenalty::gnmt, 0.6, 1), 1.0);
  // alpha 1: (5 + 13) / 6 = 3; alpha 0: 1.
  EXPECT_NEAR(length_penalty(LengthPenalty::gnmt, 1.0, 13), 3.0, 1e-15);
  EXPECT_EQ(length_penalty(LengthPenalty::gnmt, 0.0, 40), 1.0);
}

TEST(CoveragePenalty, MatchesHandComputedValues) {
  // C = (0.5, 1.5, 0, 1): log 0.5 + log 1 + log 1e-10 + log 1 = -0.69314718055994531 - 23.025850929940457
  //   = -23.718998110500402; times beta 0.2 = -4.7437996221000804.
  EXPECT_NEAR(coverage_penalty(0.2, {0.5f, 1.5f, 0.0f, 1.0f}), -4.7437996221000804, 1e-12);
  // Full coverage costs nothing; beta 0 turns it off even for an unattended position.
  EXPECT_EQ(coverage_penalty(0.2, {1.0f, 2.0f, 1.0f}), 0.0);
  EXPECT_EQ(coverage_penalty(0.0, {0.0f, 0.3f}), 0.0);
  // C = 0.25: log 0.25 = -1.3862943611198906, beta 1.
  EXPECT_NEAR(coverage_penalty(1.0, {0.25f}), -1.3862943611198906, 1e-15);
}

TEST(FinalScore, IsLogProbOverLengthPenaltyPlusCoverage) {
  SearchOptions options;
  options.length_penalty = LengthPenalty::gnmt;
  options.length_alpha = 0.6;
  options.coverage_beta = 0.2;
  const std::vector<float> coverage = {0.5f, 1.5f, 0.0f, 1.0f};
  // r = -3.5, |Y| = 7: -3.5 / 2^0.6 - 4.7437996221000804 = -2.3091388438525650 - 4.7437996221000804.
  EXPECT_NEAR(final_score(-3.5f, 7, coverage.data(), 4, options), -7.0529384659526454, 1e-12);
  options.length_penalty = LengthPenalty::average;
  options.coverage_beta = 0;
  EXPECT_EQ(final_score(-3.5f, 7, nullptr, 4, options), -0.5);
  // r is widened from float: -0.1f is -0.100000001490116...
  options.length_penalty = LengthPenalty::none;
  EXPECT_EQ(final_score(-0.1f, 3, nullptr, 4, options), static_cast<double>(-0.1f));
}

TEST(RepeatedNgramTokens, NamesTheTokensThatWouldRepeatAnNgram) {
  const std::vector<int> tokens = {4, 5, 6, 4, 5};
  EXPECT_EQ(repeated_ngram_tokens(tokens, 3), (std::vector<int>{6}));        // (4 5 6) again
  EXPECT_EQ(repeated_ngram_tokens(tokens, 2), (std::vector<int>{6}));        // (5 6) again
  EXPECT_EQ(repeated_ngram_tokens(tokens, 1), (std::vector<int>{4, 5, 6}));  // any seen token
  EXPECT_EQ(repeated_ngram_tokens(tokens, 4), (std::vector<int>{}));         // (6 4 5 x) never seen
  EXPECT_EQ(repeated_ngram_tokens(tokens, 6), (std::vector<int>{}));         // longer than the tokens
  EXPECT_EQ(repeated_ngram_tokens({7, 7, 7}, 2), (std::vector<int>{7}));
  EXPECT_EQ(repeated_ngram_tokens({SpecialIds::kEos, 7}, 1), (std::vector<int>{7}));  // EOS never blocked
}

TEST(ApplyConstraints, BlocksEarlyEosAndRepeatedNgrams) {
  at::Tensor scores = at::zeros({2, 8});
  const std::vector<int> a = {4, 5, 4}, b = {6, 7, 6};
  SearchOptions options;
  options.min_length = 4;
  options.no_repeat_ngram = 2;
  apply_constraints(scores, {&a, &b}, 3, options);
  // Row 0: EOS (held 3 < 4) and 5 ((4 5) again). Row 1: EOS and 7 ((6 7) again).
  at::Tensor expected = at::zeros({2, 8});
  expected[0][SpecialIds::kEos] = kNegInf;
  expected[0][5] = kNegInf;
  expected[1][SpecialIds::kEos] = kNegInf;
  expected[1][7] = kNegInf;
  EXPECT_TRUE(at::equal(scores, expected));
  // Held >= min length and no n-gram rule: nothing changes.
  at::Tensor untouched = at::zeros({2, 8});
  apply_constraints(untouched, {&a, &b}, 4, SearchOptions{});
  EXPECT_TRUE(at::equal(untouched, at::zeros({2, 8})));
}

// constraints_apply is what lets search skip apply_constraints: wherever it says false, applying
// them must forbid nothing, for any history. It turns true at the first step that can forbid.
TEST(ConstraintsApply, IsFalseOnlyWhereApplyConstraintsCannotForbid) {
  const std::vector<std::vector<int>> sources = {{5, 6, 5, 6, 5, 6}, {7, 7, 7, 7, 7, 7}, {4, 5, 6, 7, 8, 9}};
  for (const std::int64_t min_length : {0, 3}) {
    for (const std::int64_t ngram : {0, 1, 2, 4}) {
      SearchOptions options;
      options.min_length = min_length;
      options.no_repeat_ngram = ngram;
      for (std::int64_t held = 0; held <= 6; ++held) {
        for (const auto& source : sources) {
          const std::vector<int> history(source.begin(), source.begin() + held);
          at::Tensor scores = at::zeros({1, 10});
          apply_constraints(scores, {&history}, held, options);
          if (at::isinf(scores).any().item<bool>()) {
            EXPECT_TRUE(constraints_apply(held, options))
                << "min_length " << min_length << ", ngram " << ngram << ", held " << held;
          }
        }
      }
    }
  }
  SearchOptions options;
  options.min_length = 2;
  options.no_repeat_ngram = 3;
  EXPECT_TRUE(constraints_apply(1, options));   // EOS forbidden
  EXPECT_FALSE(constraints_apply(2, options));  // no n-gram of 3 can repeat in 2 tokens
  EXPECT_TRUE(constraints_apply(3, options));   // {7, 7, 7} + 7 would
}

TEST(SearchOptions, NameTheOptionInErrors) {
  const auto with = [](auto change) {
    SearchOptions options;
    change(options);
    return options;
  };
  EXPECT_NO_THROW(SearchOptions{}.validate());
  EXPECT_THROW_WITH(with([](auto& o) { o.beam_size = 0; }).validate(), ConfigError, "beam-size must be >= 1, got 0");
  EXPECT_THROW_WITH(with([](auto& o) { o.n_best = 6; }).validate(), ConfigError, "n-best", "beam size 5", "got 6");
  EXPECT_THROW_WITH(with([](auto& o) { o.n_best = 0; }).validate(), ConfigError, "n-best");
  EXPECT_THROW_WITH(with([](auto& o) { o.length_alpha = -0.5; }).validate(), ConfigError,
                    "length-alpha must be >= 0, got -0.5");
  EXPECT_THROW_WITH(with([](auto& o) { o.length_alpha = std::nan(""); }).validate(), ConfigError, "length-alpha");
  EXPECT_THROW_WITH(with([](auto& o) { o.coverage_beta = -1; }).validate(), ConfigError, "coverage-beta", "got -1");
  EXPECT_THROW_WITH(with([](auto& o) { o.no_repeat_ngram = -1; }).validate(), ConfigError, "no-repeat-ngram");
  EXPECT_THROW_WITH(with([](auto& o) { o.min_length = -2; }).validate(), ConfigError, "min-length");
  EXPECT_THROW_WITH(with([](auto& o) { o.max_length_b = -1; }).validate(), ConfigError, "max-length-b");
}

TEST(SearchOptions, LengthPenaltyNamesRoundTrip) {
  for (const auto kind : {LengthPenalty::none, LengthPenalty::average, LengthPenalty::gnmt}) {
    EXPECT_EQ(parse_enum<LengthPenalty>(name_of(kind)), kind);
  }
  EXPECT_THROW_WITH(parse_enum<LengthPenalty>("wu"), ConfigError, "unknown length penalty 'wu'", "gnmt");
}

}  // namespace
}  // namespace nmt
