#include "nmt/data/batch.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "nmt/core/error.h"
#include "nmt/data/tokenizer.h"
#include "tests/test_util.h"

namespace nmt {
namespace {

constexpr std::int64_t P = SpecialIds::kPad, B = SpecialIds::kBos, E = SpecialIds::kEos;

std::vector<std::vector<std::int64_t>> rows(const at::Tensor& t) {
  std::vector<std::vector<std::int64_t>> out;
  const auto c = t.to(at::kLong).contiguous();
  for (std::int64_t r = 0; r < c.size(0); ++r) {
    out.emplace_back(c[r].data_ptr<std::int64_t>(), c[r].data_ptr<std::int64_t>() + c.size(1));
  }
  return out;
}

TEST(Batch, PadsShiftsAndMasksByHand) {
  const auto corpus = ParallelCorpus::from_sequences({{10, 11}, {20, 21, 22, 23}, {30}},
                                                     {{40, 41, 42}, {50}, {60, 61}});
  const Batch batch = make_batch(corpus, {0, 1, 2});
  // Rows by source length, longest first.
  EXPECT_EQ(batch.indices, (std::vector<std::size_t>{1, 0, 2}));
  EXPECT_EQ(rows(batch.source), (std::vector<std::vector<std::int64_t>>{
                                    {20, 21, 22, 23, E}, {10, 11, E, P, P}, {30, E, P, P, P}}));
  EXPECT_EQ(rows(batch.source_lengths.unsqueeze(0)), (std::vector<std::vector<std::int64_t>>{{5, 3, 2}}));
  EXPECT_EQ(rows(batch.source_mask), (std::vector<std::vector<std::int64_t>>{
                                         {1, 1, 1, 1, 1}, {1, 1, 1, 0, 0}, {1, 1, 0, 0, 0}}));
  EXPECT_EQ(rows(batch.target_in), (std::vector<std::vector<std::int64_t>>{
                                       {B, 50, P, P}, {B, 40, 41, 42}, {B, 60, 61, P}}));
  EXPECT_EQ(rows(batch.target_out), (std::vector<std::vector<std::int64_t>>{
                                        {50, E, P, P}, {40, 41, 42, E}, {60, 61, E, P}}));
  EXPECT_EQ(rows(batch.target_mask), (std::vector<std::vector<std::int64_t>>{
                                         {1, 1, 0, 0}, {1, 1, 1, 1}, {1, 1, 1, 0}}));
  EXPECT_EQ(batch.source_tokens, 10);
  EXPECT_EQ(batch.target_tokens, 9);
  EXPECT_EQ(batch.size(), 3);
  EXPECT_EQ(batch.source.scalar_type(), at::kLong);
  EXPECT_EQ(batch.source_mask.scalar_type(), at::kBool);
}

TEST(Batch, MasksAgreeWithPaddingOnRealText) {
  const auto corpus = ParallelCorpus::load(test::data_path("toy.es"), test::data_path("toy.en"),
                                           test::toy_tokenizer(), test::toy_tokenizer());
  std::vector<std::size_t> indices(40);
  for (std::size_t i = 0; i < indices.size(); ++i) indices[i] = i * 7;
  const Batch batch = make_batch(corpus, indices);
  EXPECT_TRUE(at::equal(batch.source_mask, batch.source != P));
  EXPECT_TRUE(at::equal(batch.target_mask, batch.target_out != P));
  EXPECT_EQ(batch.source_mask.sum().item<std::int64_t>(), batch.source_tokens);
  EXPECT_EQ(batch.target_mask.sum().item<std::int64_t>(), batch.target_tokens);
  EXPECT_TRUE(at::equal(batch.source_mask.sum(1), batch.source_lengths));
  EXPECT_TRUE(at::equal(batch.target_mask.sum(1), batch.target_lengths));
  // Teacher forcing: the decoder input is the label sequence shifted right behind BOS.
  EXPECT_TRUE(at::equal(batch.target_in.slice(1, 1), batch.target_out.slice(1, 0, -1)
                                                         .masked_fill(batch.target_out.slice(1, 0, -1) == E, P)));
  for (std::int64_t r = 0; r < batch.size(); ++r) {
    const TokenSpan x = corpus.source(batch.indices[static_cast<std::size_t>(r)]);
    EXPECT_EQ(batch.source_lengths[r].item<std::int64_t>(), static_cast<std::int64_t>(x.size) + 1);
    EXPECT_EQ(batch.source[r][0].item<std::int64_t>(), x[0]);
  }
}

TEST(Batch, RejectsEmptyAndOutOfRange) {
  const auto corpus = ParallelCorpus::from_sequences({{10}}, {{20}});
  EXPECT_THROW_WITH(make_batch(corpus, {}), DataError, "no sentence pairs");
  EXPECT_THROW_WITH(make_batch(corpus, {1}), DataError, "index 1 out of range");
}

}  // namespace
}  // namespace nmt
