#include "nmt/data/source_batching.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "nmt/data/tokenizer.h"

namespace nmt {
namespace {

TEST(SourceBatching, LongestFirstKeepsInputOrderAmongEqualLengthsAndDropsEmptyOnes) {
  const std::vector<std::int64_t> lengths = {3, 0, 5, 3, 1, 5};
  EXPECT_EQ(longest_first(lengths, false), (std::vector<std::size_t>{2, 5, 0, 3, 4}));
  EXPECT_EQ(longest_first(lengths, true), (std::vector<std::size_t>{2, 5, 0, 3, 4, 1}));
}

TEST(SourceBatching, BatchesFitTheBudgetAndTheSentenceLimit) {
  const std::vector<std::int64_t> lengths = {9, 9, 4, 4, 4, 4, 1, 1, 1};
  const std::vector<std::size_t> order = longest_first(lengths, false);
  // Budget 40 at cost 2 per row: rows x (longest + 1) x 2 <= 40.
  using Runs = std::vector<std::pair<std::size_t, std::size_t>>;
  EXPECT_EQ(plan_source_batches(order, lengths, 40, 2, 0), (Runs{{0, 2}, {2, 6}, {6, 9}}));
  EXPECT_EQ(plan_source_batches(order, lengths, 40, 2, 2), (Runs{{0, 2}, {2, 4}, {4, 6}, {6, 8}, {8, 9}}));
  // A sentence over the budget still gets a batch of its own.
  EXPECT_EQ(plan_source_batches(order, lengths, 1, 1, 0).size(), lengths.size());
}

TEST(SourceBatching, RowsEndWithEosAndTheWidthIsAMultipleOf16) {
  const std::vector<std::vector<int>> ids = {{7, 8}, {}, {9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}};
  const SourceBatch batch = make_source_batch(ids, {2, 0}, 0, 2);
  ASSERT_EQ(batch.source.sizes(), (std::vector<std::int64_t>{2, 16}));
  EXPECT_TRUE(at::equal(batch.lengths, at::tensor({16, 3}, at::kLong)));
  EXPECT_EQ(batch.source[0][15].item<std::int64_t>(), SpecialIds::kEos);
  EXPECT_TRUE(at::equal(batch.source[1].slice(0, 0, 4), at::tensor({7, 8, SpecialIds::kEos, SpecialIds::kPad}, at::kLong)));
  EXPECT_EQ(make_source_batch(ids, {1}, 0, 1).source.size(1), 16) << "an empty sentence is EOS, padded";
  EXPECT_EQ(make_source_batch({std::vector<int>(16, 5)}, {0}, 0, 1).source.size(1), 32);
}

}  // namespace
}  // namespace nmt
