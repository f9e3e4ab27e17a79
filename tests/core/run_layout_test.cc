// RunLayout: the names of a run directory's files, and step file names read back.
#include "nmt/core/run_layout.h"

#include <gtest/gtest.h>

namespace nmt {
namespace {

TEST(RunLayout, NamesEveryFileOfARunDirectory) {
  const RunLayout run("runs/a");
  EXPECT_EQ(run.config().string(), "runs/a/config.toml");
  EXPECT_EQ(run.log().string(), "runs/a/train.log");
  EXPECT_EQ(run.metrics().string(), "runs/a/metrics.jsonl");
  EXPECT_EQ(run.best().string(), "runs/a/best.pt");
  EXPECT_EQ(run.lock().string(), "runs/a/train.lock");
  EXPECT_EQ(run.attention(500).string(), "runs/a/attention/step-00000500");
  EXPECT_EQ(run.curves("svg").string(), "runs/a/curves.svg");
  EXPECT_EQ(run.latest().string(), "runs/a/checkpoints/latest");
  EXPECT_EQ(run.checkpoint(500).string(), "runs/a/checkpoints/step-00000500.pt");
  EXPECT_EQ(run.state(500).string(), "runs/a/checkpoints/step-00000500.state");
  EXPECT_EQ(run.checkpoint("step-000000007").string(), "runs/a/checkpoints/step-000000007.pt");
  EXPECT_EQ(RunLayout("runs/a/").metrics().string(), "runs/a/metrics.jsonl");
  EXPECT_EQ(step_stem(123456789), "step-123456789");
}

TEST(RunLayout, ReadsStepsBackFromFileNames) {
  EXPECT_EQ(RunLayout::step_of("step-00000500.pt", ".pt"), 500);
  EXPECT_EQ(RunLayout::step_of("step-00000500.state", ".state"), 500);
  EXPECT_EQ(RunLayout::step_of("step-123456789", ""), 123456789);
  EXPECT_FALSE(RunLayout::step_of("step-00000500.state", ".pt"));
  EXPECT_FALSE(RunLayout::step_of("step-0000500.pt", ".pt")) << "fewer than 8 digits";
  EXPECT_FALSE(RunLayout::step_of("step-0000050a.pt", ".pt"));
  EXPECT_FALSE(RunLayout::step_of("best.pt", ".pt"));
  EXPECT_FALSE(RunLayout::step_of("step-00000500.pt.tmp.Xk9dQ2", ".pt"));
  EXPECT_FALSE(RunLayout::step_of("step-99999999999999999999.pt", ".pt")) << "beyond a step";
}

}  // namespace
}  // namespace nmt
