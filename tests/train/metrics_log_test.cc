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
  test::write_text(path, "{\"event\":\"train\",\"step\":100}\n{\"event\":\"tra");
  MetricsLog(path).write("{\"event\":\"resume\"}");
  EXPECT_EQ(test::read_text(path), "{\"event\":\"train\",\"step\":100}\n{\"event\":\"tra\n{\"event\":\"resume\"}\n");
  MetricsLog(path).write("{\"x\":1}");
  EXPECT_EQ(test::read_text(path), "{\"event\":\"train\",\"step\":100}\n{\"event\":\"tra\n{\"event\":\"resume\"}\n{\"x\":1}\n");
  MetricsLog(dir.path("new.jsonl")).write("{}");
  EXPECT_EQ(test::read_text(dir.path("new.jsonl")), "{}\n");
}

}  // namespace
}  // namespace nmt
