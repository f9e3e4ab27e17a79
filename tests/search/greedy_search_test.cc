#include "nmt/search/greedy_search.h"

#include <gtest/gtest.h>

#include <limits>

#include "nmt/core/error.h"
#include "tests/search/fake_model.h"
#include "tests/test_util.h"

namespace nmt {
namespace {

using test::FakeModel;

TEST(GreedySearch, FollowsEachRowsScriptAndStopsAtEos) {
  FakeModel model({{7, 8, 9}, {11}, {12, 13, 14, 15, 16}}, 20);
  const auto [source, lengths] = test::source_batch({4, 6, 3});
  SearchOptions options;
  options.keep_attention = true;
  const auto hypotheses = greedy_search(model, source, lengths, options);
  ASSERT_EQ(hypotheses.size(), 3u);
  EXPECT_EQ(hypotheses[0].tokens, (std::vector<int>{7, 8, 9}));
  EXPECT_EQ(hypotheses[1].tokens, (std::vector<int>{11}));
  EXPECT_EQ(hypotheses[2].tokens, (std::vector<int>{12, 13, 14, 15, 16}));
  for (const auto& h : hypotheses) {
    EXPECT_TRUE(h.finished);
    EXPECT_NEAR(h.score, -0.1 * static_cast<double>(h.tokens.size() + 1), 1e-6);  // tokens and EOS
  }
  // Attention: one row per step (tokens + EOS), trimmed to the row's source length.
  EXPECT_EQ(hypotheses[0].attention.sizes(), (std::vector<std::int64_t>{4, 4}));
  EXPECT_EQ(hypotheses[1].attention.sizes(), (std::vector<std::int64_t>{2, 6}));
  EXPECT_EQ(hypotheses[2].attention[4].argmax().item<std::int64_t>(), 4 % 3);
  // Finished rows leave the batch: 6 steps for the longest (5 tokens + EOS), not 3 x 6.
  EXPECT_EQ(model.steps(), 6);
}

TEST(GreedySearch, MinLengthBlocksEarlyEos) {
  FakeModel model({{7}}, 20);
  const auto [source, lengths] = test::source_batch({5});
  SearchOptions options;
  options.min_length = 3;
  const auto h = greedy_search(model, source, lengths, options).front();
  // Steps 1 and 2 would be EOS; blocked, the runner-up (5) is taken.
  EXPECT_EQ(h.tokens, (std::vector<int>{7, 5, 5}));
  EXPECT_TRUE(h.finished);
}

TEST(GreedySearch, MaxLengthIsAXPlusB) {
  FakeModel model({std::vector<int>(50, 9)}, 20);
  const auto [source, lengths] = test::source_batch({5});  // 4 subwords + EOS
  SearchOptions options;
  options.max_length_a = 1.5;
  options.max_length_b = 2;
  const auto h = greedy_search(model, source, lengths, options).front();
  EXPECT_EQ(h.tokens.size(), 8u);  // floor(1.5 * 4) + 2
  EXPECT_FALSE(h.finished);
}

TEST(GreedySearch, RowAloneEqualsRowInBatch) {
  const std::vector<std::vector<int>> scripts = {{7, 8}, {9, 9, 9, 9}, {11, 12, 13}};
  FakeModel batch_model(scripts, 20);
  const auto [source, lengths] = test::source_batch({3, 7, 5});
  const auto together = greedy_search(batch_model, source, lengths, {});
  for (std::size_t r = 0; r < scripts.size(); ++r) {
    FakeModel single_model({scripts[r]}, 20);
    const auto [one, one_length] = test::source_batch({lengths[static_cast<std::int64_t>(r)].item<std::int64_t>()});
    const auto alone = greedy_search(single_model, one, one_length, {}).front();
    EXPECT_EQ(alone.tokens, together[r].tokens);
    EXPECT_DOUBLE_EQ(alone.score, together[r].score);
  }
}

TEST(GreedySearch, OptionsAreValidated) {
  SearchOptions options;
  options.max_length_a = -1;
  EXPECT_THROW_WITH(options.validate(), ConfigError, "max-length-a");
  options.max_length_a = 1;
  options.min_length = -2;
  EXPECT_THROW_WITH(options.validate(), ConfigError, "min-length");
}

// --max-length-a 1e30 once overflowed the limit's integer conversion: every output was one subword.
TEST(GreedySearch, HugeLengthLimitsAreRefusedAndNeverOverflow) {
  SearchOptions options;
  options.max_length_a = 1e30;
  EXPECT_THROW_WITH(options.validate(), ConfigError, "max-length-a", "1000");
  options.max_length_a = kMaxLengthA;
  options.max_length_b = kMaxLengthB;
  EXPECT_NO_THROW(options.validate());
  EXPECT_EQ(options.max_length(1 << 30), kMaxTargetLength);
  EXPECT_EQ(options.max_length(std::numeric_limits<std::int64_t>::max()), kMaxTargetLength);
  options.max_length_b = kMaxLengthB + 1;
  EXPECT_THROW_WITH(options.validate(), ConfigError, "max-length-b");
  options.max_length_a = 2;
  options.max_length_b = 10;
  EXPECT_EQ(options.max_length(7), 24);
  options.max_length_a = 0;
  options.max_length_b = 0;
  EXPECT_EQ(options.max_length(7), 1);
}

}  // namespace
}  // namespace nmt
