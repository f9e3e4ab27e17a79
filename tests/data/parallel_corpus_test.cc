#include "nmt/data/parallel_corpus.h"

#include <gtest/gtest.h>

#include "nmt/core/error.h"
#include "tests/test_util.h"

namespace nmt {
namespace {
using test::data_path;
using test::toy_tokenizer;

TEST(ParallelCorpus, LoadsRealTextTokenizedOnce) {
  const auto corpus = ParallelCorpus::load(data_path("toy.es"), data_path("toy.en"), toy_tokenizer(),
                                           toy_tokenizer());
  ASSERT_EQ(corpus.size(), 319u);
  EXPECT_EQ(corpus.counts().lines, 319u);
  EXPECT_EQ(corpus.counts().kept, 319u);
  const auto es = test::read_lines(data_path("toy.es"));
  const auto en = test::read_lines(data_path("toy.en"));
  for (std::size_t i : {0u, 100u, 318u}) {
    const auto expected_source = toy_tokenizer().encode(es[i]);
    const auto expected_target = toy_tokenizer().encode(en[i]);
    EXPECT_EQ(std::vector<int>(corpus.source(i).begin(), corpus.source(i).end()), expected_source);
    EXPECT_EQ(std::vector<int>(corpus.target(i).begin(), corpus.target(i).end()), expected_target);
    EXPECT_EQ(corpus.line_number(i), i + 1);
  }
  std::size_t tokens = 0;
  for (std::size_t i = 0; i < corpus.size(); ++i) tokens += corpus.source(i).size;
  EXPECT_EQ(tokens, corpus.source_tokens());
}

TEST(ParallelCorpus, SkipsAndCountsEmptyLines) {
  test::TempDir dir;
  test::write_text(dir.path("s"), "la luz\n\n  \ny la tierra\nDios\n");
  test::write_text(dir.path("t"), "the light\nempty source\n\n\n \t\n");
  const auto corpus = ParallelCorpus::load(dir.path("s"), dir.path("t"), toy_tokenizer(), toy_tokenizer());
  EXPECT_EQ(corpus.counts().lines, 5u);
  EXPECT_EQ(corpus.counts().empty, 4u);
  ASSERT_EQ(corpus.size(), 1u);
  EXPECT_EQ(corpus.line_number(0), 1u);
}

TEST(ParallelCorpus, LineCountMismatchNamesBothFilesAndCounts) {
  test::TempDir dir;
  test::write_text(dir.path("train.es"), "uno\ndos\ntres\ncuatro\n");
  test::write_text(dir.path("train.en"), "one\ntwo\n");
  EXPECT_THROW_WITH(
      ParallelCorpus::load(dir.path("train.es"), dir.path("train.en"), toy_tokenizer(), toy_tokenizer()),
      DataError, "train.es has 4 lines", "train.en has 2");
  EXPECT_THROW_WITH(
      ParallelCorpus::load(dir.path("train.en"), dir.path("train.es"), toy_tokenizer(), toy_tokenizer()),
      DataError, "train.en has 2 lines", "train.es has 4");
}

TEST(ParallelCorpus, InvalidUtf8NamesFileAndLine) {
  test::TempDir dir;
  test::write_text(dir.path("s"), "uno\ndos\n");
  test::write_text(dir.path("t"), "one\nt\xE9o\n");  // Latin-1, not UTF-8
  EXPECT_THROW_WITH(ParallelCorpus::load(dir.path("s"), dir.path("t"), toy_tokenizer(), toy_tokenizer()),
                    DataError, dir.path("t") + ":2: invalid UTF-8 at byte 2");
}

TEST(ParallelCorpus, MissingFileIsNamed) {
  test::TempDir dir;
  test::write_text(dir.path("s"), "uno\n");
  EXPECT_THROW_WITH(
      ParallelCorpus::load(dir.path("s"), dir.path("nope.en"), toy_tokenizer(), toy_tokenizer()), IoError,
      "nope.en");
}

TEST(ParallelCorpus, FiltersByLengthAndRatio) {
  const auto unfiltered = ParallelCorpus::load(data_path("toy.es"), data_path("toy.en"), toy_tokenizer(),
                                               toy_tokenizer());
  CorpusFilterOptions filter;
  filter.max_length = 40;
  filter.max_length_ratio = 1.3;
  const auto corpus = ParallelCorpus::load(data_path("toy.es"), data_path("toy.en"), toy_tokenizer(),
                                           toy_tokenizer(), filter);
  std::size_t too_long = 0, bad_ratio = 0;
  for (std::size_t i = 0; i < unfiltered.size(); ++i) {
    const double s = static_cast<double>(unfiltered.source(i).size), t = static_cast<double>(unfiltered.target(i).size);
    if (std::max(s, t) > 40) {
      ++too_long;
    } else if (std::max(s, t) > 1.3 * std::min(s, t)) {
      ++bad_ratio;
    }
  }
  EXPECT_GT(too_long, 0u);
  EXPECT_GT(bad_ratio, 0u);
  EXPECT_EQ(corpus.counts().too_long, too_long);
  EXPECT_EQ(corpus.counts().bad_ratio, bad_ratio);
  EXPECT_EQ(corpus.size(), 319u - too_long - bad_ratio);
  const auto& c = corpus.counts();
  EXPECT_EQ(c.lines, c.kept + c.empty + c.too_long + c.bad_ratio);
  for (std::size_t i = 0; i < corpus.size(); ++i) {
    EXPECT_LE(corpus.source(i).size, 40u);
    EXPECT_LE(corpus.target(i).size, 40u);
  }
}

TEST(ParallelCorpus, FilterOptionsAreValidated) {
  CorpusFilterOptions filter;
  filter.max_length = -1;
  EXPECT_THROW_WITH(filter.validate(), ConfigError, "max length");
  filter.max_length = 0;
  filter.max_length_ratio = 0.5;
  EXPECT_THROW_WITH(filter.validate(), ConfigError, "max length ratio");
}

TEST(ParallelCorpus, FingerprintTracksContent) {
  const auto a = ParallelCorpus::from_sequences({{5, 6}, {7}}, {{8}, {9, 10}});
  const auto same = ParallelCorpus::from_sequences({{5, 6}, {7}}, {{8}, {9, 10}});
  const auto other_id = ParallelCorpus::from_sequences({{5, 6}, {7}}, {{8}, {9, 11}});
  const auto moved_boundary = ParallelCorpus::from_sequences({{5}, {6, 7}}, {{8}, {9, 10}});
  EXPECT_EQ(a.fingerprint(), same.fingerprint());
  EXPECT_NE(a.fingerprint(), other_id.fingerprint());
  EXPECT_NE(a.fingerprint(), moved_boundary.fingerprint());
}

TEST(ParallelCorpus, FromSequencesRejectsBadInput) {
  EXPECT_THROW_WITH(ParallelCorpus::from_sequences({{5}}, {}), DataError, "1 source, 0 target");
  EXPECT_THROW_WITH(ParallelCorpus::from_sequences({{5}, {}}, {{6}, {7}}), DataError, "sequence 2");
}

}  // namespace
}  // namespace nmt
