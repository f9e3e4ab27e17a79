// Word dropout (nmt/train/word_dropout.h): its rate, what it never touches, and draws that belong to
// the sentence, not to the batch.
#include "nmt/train/word_dropout.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "nmt/core/error.h"
#include "nmt/data/parallel_corpus.h"
#include "nmt/data/tokenizer.h"
#include "tests/model/model_test_util.h"

// A namespace of its own: the unity build puts this file in one unit with others.
namespace nmt::word_dropout_test {
namespace {

// 400 pairs of 5-40 tokens (ids >= 4, no specials), so the batch has padding on both sides.
ParallelCorpus corpus() {
  std::vector<int> source_lengths, target_lengths;
  for (int i = 0; i < 400; ++i) {
    source_lengths.push_back(5 + (i * 7) % 36);
    target_lengths.push_back(5 + (i * 11) % 36);
  }
  return ParallelCorpus::from_sequences(test::random_sequences(source_lengths, 500, 1),
                                        test::random_sequences(target_lengths, 500, 2));
}

std::vector<std::size_t> all(std::size_t n) {
  std::vector<std::size_t> indices(n);
  std::iota(indices.begin(), indices.end(), 0);
  return indices;
}

bool special(std::int64_t id) {
  return id == SpecialIds::kPad || id == SpecialIds::kBos || id == SpecialIds::kEos;
}

// Over ~9,000 real tokens a side the share dropped is the rate (3 standard deviations: 0.015);
// padding, BOS, EOS and the labels never change.
TEST(WordDropout, DropsRealTokensAtTheRateAndNothingElse) {
  const ParallelCorpus c = corpus();
  const Batch batch = make_batch(c, all(c.size()));
  const Batch dropped = drop_words(batch, 0.3, 7, 0);
  EXPECT_TRUE(at::equal(dropped.target_out, batch.target_out));
  EXPECT_TRUE(at::equal(dropped.source_lengths, batch.source_lengths));
  for (const auto& [before, after] : {std::pair{batch.source, dropped.source}, {batch.target_in, dropped.target_in}}) {
    std::int64_t real = 0, unk = 0;
    const auto b = before.accessor<std::int64_t, 2>();
    const auto a = after.accessor<std::int64_t, 2>();
    for (std::int64_t r = 0; r < before.size(0); ++r) {
      for (std::int64_t j = 0; j < before.size(1); ++j) {
        if (special(b[r][j])) {
          EXPECT_EQ(a[r][j], b[r][j]) << r << "," << j;
          continue;
        }
        ++real;
        if (a[r][j] != b[r][j]) {
          EXPECT_EQ(a[r][j], SpecialIds::kUnk);
          ++unk;
        }
      }
    }
    EXPECT_GT(real, 8000);
    EXPECT_NEAR(static_cast<double>(unk) / static_cast<double>(real), 0.3, 0.015);
  }
  // The input batch is not changed, and rate 0 gives it back as it is.
  EXPECT_TRUE(at::equal(make_batch(c, all(c.size())).source, batch.source));
  const Batch none = drop_words(batch, 0.0, 7, 0);
  EXPECT_TRUE(none.source.is_same(batch.source));
  EXPECT_TRUE(none.target_in.is_same(batch.target_in));
}

// A sentence gets the same draws alone as in any batch; another epoch or seed gives other draws.
TEST(WordDropout, DrawsBelongToTheSentenceAndTheEpoch) {
  const ParallelCorpus c = corpus();
  const Batch batch = make_batch(c, all(c.size()));
  const Batch dropped = drop_words(batch, 0.2, 3, 5);
  for (const std::size_t i : {std::size_t{0}, std::size_t{17}, std::size_t{399}}) {
    const Batch alone = drop_words(make_batch(c, {i}), 0.2, 3, 5);
    const auto row = static_cast<std::int64_t>(std::find(batch.indices.begin(), batch.indices.end(), i) -
                                               batch.indices.begin());
    EXPECT_TRUE(at::equal(dropped.source[row].narrow(0, 0, alone.source.size(1)), alone.source[0])) << i;
    EXPECT_TRUE(at::equal(dropped.target_in[row].narrow(0, 0, alone.target_in.size(1)), alone.target_in[0])) << i;
  }
  EXPECT_TRUE(at::equal(drop_words(batch, 0.2, 3, 5).source, dropped.source));
  EXPECT_FALSE(at::equal(drop_words(batch, 0.2, 3, 6).source, dropped.source));
  EXPECT_FALSE(at::equal(drop_words(batch, 0.2, 4, 5).source, dropped.source));
  // The two sides draw apart: the same positions are not dropped on both.
  const at::Tensor source_unk = dropped.source.narrow(1, 0, 5) == SpecialIds::kUnk;
  const at::Tensor target_unk = dropped.target_in.narrow(1, 1, 5) == SpecialIds::kUnk;
  EXPECT_FALSE(at::equal(source_unk, target_unk));
}

TEST(WordDropout, RateOutsideTheRangeIsABugOfTheCaller) {
  const ParallelCorpus c = corpus();
  const Batch batch = make_batch(c, {0});
  EXPECT_THROW(drop_words(batch, 1.0, 1, 0), Error);
  EXPECT_THROW(drop_words(batch, -0.1, 1, 0), Error);
  EXPECT_THROW(drop_words(batch, std::nan(""), 1, 0), Error);
}

}  // namespace
}  // namespace nmt::word_dropout_test
