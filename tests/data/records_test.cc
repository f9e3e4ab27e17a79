// The typed records that cross module boundaries with a JSON form (attention, training metrics)
// and the subword-to-word mapping: their JSON is pinned byte for byte (files users keep), and what
// is written reads back.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "nmt/core/error.h"
#include "nmt/data/attention_record.h"
#include "nmt/data/metrics_events.h"
#include "nmt/data/subword_words.h"
#include "tests/test_util.h"

namespace nmt {
namespace {

const std::string W = kWordMark;

TEST(SubwordWords, AWordBeginsAtEachMarkAndEndOfSentenceIsAWordOfItsOwn) {
  EXPECT_EQ(word_of_pieces({}), std::vector<std::size_t>{});
  EXPECT_EQ(word_of_pieces({W + "En", W + "el", W + "prin", "cipio", ","}), (std::vector<std::size_t>{0, 1, 2, 2, 2}));
  EXPECT_EQ(word_of_pieces({"ab", W + "c", "</s>"}), (std::vector<std::size_t>{0, 1, 2})) << "a first piece without the mark";
  EXPECT_EQ(word_of_pieces({W + "a", "b", "</s>", "c"}), (std::vector<std::size_t>{0, 0, 1, 2}));
  EXPECT_TRUE(starts_word(W + "x"));
  EXPECT_FALSE(starts_word("x" + W));
}

TEST(AttentionRecord, JsonFormIsPinnedAndReadsBack) {
  AttentionRecord record;
  record.index = 3;
  record.source = {W + "Dios", "</s>"};
  record.target = {W + "God", "</s>"};
  record.weights = {{0.75, 0.25}, {rounded_weight(0.1234567), rounded_weight(0.8765433)}};
  EXPECT_EQ(record.to_json(),
            "{\"attention\":[[0.75,0.25],[0.123457,0.876543]],\"index\":3,\"source\":[\"▁Dios\",\"</s>\"],"
            "\"target\":[\"▁God\",\"</s>\"]}");
  const AttentionRecord back = AttentionRecord::from_json(record.to_json(), "x line 1");
  EXPECT_EQ(back.index, 3);
  EXPECT_EQ(back.source, record.source);
  EXPECT_EQ(back.target, record.target);
  EXPECT_EQ(back.weights, record.weights);
  EXPECT_EQ(AttentionRecord{}.to_json(), "{\"attention\":[],\"index\":0,\"source\":[],\"target\":[]}");
  EXPECT_THROW_WITH(AttentionRecord::from_json("{\"index\":0,\"source\":[\"a\"],\"target\":[\"b\"],\"attention\":[[0.5]]}",
                                               "f line 2"),
                    DataError, "f line 2, row 1: weights sum to 0.5");
  EXPECT_THROW_WITH(AttentionRecord::from_json("[1]", "f line 3"), DataError, "f line 3: not a JSON object");
  // The same checks on a record in memory (training's heat-maps read no file).
  record.check("example 1");
  AttentionRecord broken = record;
  broken.weights[1][0] = std::nan("");
  EXPECT_THROW_WITH(broken.check("example 1"), DataError, "example 1, row 2: weight nan outside [0, 1]");
  broken.weights.pop_back();
  EXPECT_THROW_WITH(broken.check("example 1"), DataError, "example 1: 1 attention rows for 2 target tokens");
}

TEST(AttentionRecord, HardAlignmentTakesTheFirstLargestAmongTheColumnsAsked) {
  const std::vector<std::vector<double>> weights = {{0.2, 0.3, 0.5}, {0.4, 0.4, 0.2}, {0.1, 0.1, 0.8}};
  EXPECT_EQ(hard_alignment(weights, 3), (std::vector<std::size_t>{2, 0, 2}));
  EXPECT_EQ(hard_alignment(weights, 2), (std::vector<std::size_t>{1, 0, 0})) << "the last column (EOS) left out";
}

TEST(MetricsEvents, JsonFormIsPinnedAndReadsBack) {
  TrainEvent train;
  train.step = 100;
  train.epoch = 2;
  train.target_tokens = 5000;
  train.loss = 4.5;
  train.ppl = 90;
  train.lr = 0.001;
  train.grad_norm = 1.25;
  train.tokens_per_s = 2000;
  train.elapsed_s = 12.5;
  EXPECT_EQ(to_json(train),
            "{\"elapsed_s\":12.5,\"epoch\":2,\"event\":\"train\",\"grad_norm\":1.25,\"loss\":4.5,\"lr\":0.001,"
            "\"ppl\":90.0,\"step\":100,\"target_tokens\":5000,\"tokens_per_s\":2000.0}");
  train.sync_s = 0.5;
  EXPECT_NE(to_json(train).find("\"sync_s\":0.5"), std::string::npos);
  ValidEvent valid;
  valid.step = 100;
  valid.epoch = 2;
  valid.target_tokens = 5000;
  valid.loss = 4.0;
  valid.ppl = 60;
  valid.bleu = std::numeric_limits<double>::quiet_NaN();
  valid.best = true;
  valid.seconds = 3;
  EXPECT_EQ(to_json(valid),
            "{\"best\":true,\"bleu\":null,\"epoch\":2,\"event\":\"valid\",\"loss\":4.0,\"ppl\":60.0,\"seconds\":3.0,"
            "\"step\":100,\"target_tokens\":5000}");

  test::TempDir dir;
  // An older run (no target tokens), a resumed step, another kind of event and a cut line.
  test::write_text(dir.path("m.jsonl"), to_json(train) + "\n{\"event\":\"train\",\"step\":50,\"loss\":5,\"ppl\":150}\n" +
                                            "{\"event\":\"note\"}\n" + to_json(valid) + "\n{\"event\":\"tr\n" +
                                            to_json(train) + "\n");
  const MetricsHistory history = read_metrics_events(dir.path("m.jsonl"));
  EXPECT_EQ(history.skipped_lines, 1u);
  ASSERT_EQ(history.train.size(), 2u);
  EXPECT_EQ(history.train[0].step, 50);
  EXPECT_FALSE(history.train[0].target_tokens.has_value());
  EXPECT_EQ(history.train[1].step, 100);
  EXPECT_EQ(history.train[1].sync_s, 0.5);
  EXPECT_EQ(to_json(history.train[1]), to_json(train));
  ASSERT_EQ(history.valid.size(), 1u);
  EXPECT_TRUE(std::isnan(history.valid[0].bleu));
  EXPECT_TRUE(history.valid[0].best);

  // A crash can leave NUL bytes (or half a UTF-8 character) where the last line was; the resumed
  // run appends after them.
  test::write_text(dir.path("crash.jsonl"), to_json(train) + "\n" + std::string(12, '\0') + "\n\xC3\n" + to_json(valid) + "\n");
  const MetricsHistory after_crash = read_metrics_events(dir.path("crash.jsonl"));
  EXPECT_EQ(after_crash.skipped_lines, 2u);
  EXPECT_EQ(after_crash.train.size(), 1u);
  EXPECT_EQ(after_crash.valid.size(), 1u);

  test::write_text(dir.path("bad.jsonl"), "{\"event\":\"valid\",\"step\":5,\"ppl\":3}\n");
  EXPECT_THROW_WITH(read_metrics_events(dir.path("bad.jsonl")), DataError, "bad.jsonl line 1", "without \"loss\"");
}

}  // namespace
}  // namespace nmt
