#include "nmt/eval/length_buckets.h"

#include <gtest/gtest.h>

#include "nmt/core/error.h"
#include "tests/test_util.h"

namespace nmt {
namespace {

// Twelve lines of 1 to 12 reference words; hypotheses drop or change a word now and then.
ScoringInput twelve_lines() {
  ScoringInput input;
  input.references.resize(1);
  const std::vector<std::string> words = {"the", "light", "was", "good", "and", "god", "divided", "it",
                                          "from", "the", "darkness", "below"};
  for (std::size_t n = 1; n <= 12; ++n) {
    std::string reference, hypothesis;
    for (std::size_t w = 0; w < n; ++w) {
      reference += (w ? " " : "") + words[w];
      hypothesis += (w ? " " : "") + (w % 3 == 2 && n % 2 ? std::string("was") : words[w]);
    }
    input.references[0].push_back(reference);
    input.hypotheses.push_back(hypothesis);
  }
  return input;
}

// Each bucket's scores are those of its lines scored as a corpus of their own.
TEST(LengthBuckets, EachBucketIsItsLinesScoredAlone) {
  const ScoringInput input = twelve_lines();
  const ScoringOptions options;
  const auto buckets = score_by_length(input, {}, {4, 8, 20}, LengthOf::reference, options);
  ASSERT_EQ(buckets.size(), 4u);
  const std::vector<std::pair<std::size_t, std::size_t>> ranges = {{0, 3}, {3, 7}, {7, 12}, {12, 12}};
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    const auto [first, last] = ranges[b];
    EXPECT_EQ(buckets[b].sentences, last - first) << b;
    if (first == last) {
      EXPECT_FALSE(buckets[b].scores.bleu.has_value()) << "an empty bucket has no score";
      continue;
    }
    ScoringInput part;
    part.references.resize(1);
    for (std::size_t i = first; i < last; ++i) {
      part.hypotheses.push_back(input.hypotheses[i]);
      part.references[0].push_back(input.references[0][i]);
    }
    const CorpusScores alone = score_corpus(part, options);
    EXPECT_EQ(buckets[b].scores.bleu->score, alone.bleu->score) << b;
    EXPECT_EQ(buckets[b].scores.bleu->hypothesis_length, alone.bleu->hypothesis_length) << b;
    EXPECT_EQ(buckets[b].scores.chrf->score, alone.chrf->score) << b;
  }
  EXPECT_EQ(buckets[0].label(), "0-3");
  EXPECT_EQ(buckets[2].label(), "8-19");
  EXPECT_EQ(buckets[3].label(), "20+");
}

TEST(LengthBuckets, SourceLengthsAndOutputs) {
  const ScoringInput input = twelve_lines();
  std::vector<std::string> sources(12, "uno dos");  // every source has 2 words
  sources[11] = "uno dos tres cuatro cinco seis";
  ScoringOptions options;
  options.metrics = {"bleu"};
  const auto buckets = score_by_length(input, sources, {3}, LengthOf::source, options);
  EXPECT_EQ(buckets[0].sentences, 11u);
  EXPECT_EQ(buckets[1].sentences, 1u);
  EXPECT_FALSE(buckets[0].scores.chrf.has_value()) << "only the metrics asked for";
  const std::string table = format_length_buckets(buckets, LengthOf::source, options);
  EXPECT_NE(table.find("words (source)"), std::string::npos) << table;
  EXPECT_NE(table.find("3+"), std::string::npos) << table;
  const std::string json = length_buckets_json(buckets, LengthOf::source, options);
  EXPECT_NE(json.find("\"length_of\":\"source\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"high\":null"), std::string::npos) << json;
  EXPECT_THROW_WITH(score_by_length(input, {"a"}, {3}, LengthOf::source, options), DataError, "source has 1 lines");
}

TEST(LengthBuckets, OptionsAreCheckedWithOneLineErrors) {
  EXPECT_EQ(parse_length_edges("10,20,30"), (std::vector<std::int64_t>{10, 20, 30}));
  for (const char* bad : {"", "10,,20", "20,10", "0,5", "10,x", "10,10", "-5"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW_WITH(parse_length_edges(bad), ConfigError, "length-edges");
  }
  EXPECT_EQ(parse_enum<LengthOf>("source"), LengthOf::source);
  EXPECT_THROW_WITH(parse_enum<LengthOf>("hypothesis"), ConfigError, "length-of", "hypothesis");
}

}  // namespace
}  // namespace nmt
