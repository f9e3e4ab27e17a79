#include "nmt/train/metrics_log.h"

#include <gtest/gtest.h>

#include "tests/test_util.h"

namespace nmt {
namespace {

// A run killed mid-line leaves the metrics file without its last newline; the resumed run's first
// event must still be a line of its own, and a complete file gains nothing.
TEST(MetricsLog, AppendsAfterALineCutShortOnALineOfItsOwn) {
  test::TempDir dir;
  const std::string path = dir.path("metrics.jsonl");
  TrainEvent train;
  train.step = 100;
  test::write_text(path, to_json(train) + "\n{\"event\":\"tra");
  ValidEvent valid;
  valid.step = 100;
  MetricsLog(path).write(valid);
  const std::string first = to_json(train) + "\n{\"event\":\"tra\n" + to_json(valid) + "\n";
  EXPECT_EQ(test::read_text(path), first);
  train.step = 101;
  MetricsLog(path).write(train);
  EXPECT_EQ(test::read_text(path), first + to_json(train) + "\n");
  MetricsLog(dir.path("new.jsonl")).write(train);
  EXPECT_EQ(test::read_text(dir.path("new.jsonl")), to_json(train) + "\n");
  // What was written reads back: the cut line skipped and counted, the step repeated by the resume
  // replaced by its last event.
  const MetricsHistory history = read_metrics_events(path);
  EXPECT_EQ(history.skipped_lines, 1u);
  ASSERT_EQ(history.train.size(), 2u);
  EXPECT_EQ(history.train[0].step, 100);
  EXPECT_EQ(history.train[1].step, 101);
  ASSERT_EQ(history.valid.size(), 1u);
}

}  // namespace
}  // namespace nmt
