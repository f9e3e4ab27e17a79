// Choosing a run's step checkpoints for averaging: the newest N, the best N by the metrics file.
#include "nmt/train/run_checkpoints.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "nmt/core/error.h"
#include "nmt/core/run_layout.h"
#include "nmt/data/metrics_events.h"
#include "tests/test_util.h"

namespace nmt {
namespace {
namespace fs = std::filesystem;

// A run directory with step files for `kept` and validations (step, bleu, loss) in metrics.jsonl.
std::string fake_run(const test::TempDir& dir, const std::vector<std::int64_t>& kept,
                     const std::vector<std::tuple<std::int64_t, double, double>>& validations) {
  const std::string run = dir.path("run");
  fs::create_directories(run + "/checkpoints");
  for (const std::int64_t step : kept) test::write_text(RunLayout(run).checkpoint(step).string(), "x");
  std::string metrics;
  for (const auto& [step, bleu, loss] : validations) {
    ValidEvent v;
    v.step = step;
    v.bleu = bleu;
    v.loss = loss;
    v.ppl = std::exp(loss);
    metrics += to_json(v) + "\n";
  }
  test::write_text(run + "/metrics.jsonl", metrics);
  return run;
}

std::vector<std::string> paths(const std::string& run, const std::vector<std::int64_t>& steps) {
  std::vector<std::string> out;
  for (const std::int64_t s : steps) out.push_back(RunLayout(run).checkpoint(s).string());
  return out;
}

TEST(RunCheckpoints, LastAndBestNOfTheFilesTheRunKept) {
  test::TempDir dir;
  // Step 100 was removed by keep-last; step 200 was validated twice (a resumed run): the later counts.
  const std::string run = fake_run(dir, {200, 300, 400, 500},
                                   {{100, 30.0, 1.0}, {200, 10.0, 3.0}, {200, 25.0, 2.0}, {300, 20.0, 2.5},
                                    {400, 24.0, 1.5}, {500, NAN, 1.9}});
  EXPECT_EQ(choose_run_checkpoints(run, RunCheckpointChoice::last, 2), paths(run, {400, 500}));
  EXPECT_EQ(choose_run_checkpoints(run, RunCheckpointChoice::last, 4), paths(run, {200, 300, 400, 500}));
  EXPECT_EQ(choose_run_checkpoints(run, RunCheckpointChoice::best, 2), paths(run, {200, 400}));
  EXPECT_EQ(choose_run_checkpoints(run, RunCheckpointChoice::best, 2, ValidationMetric::loss), paths(run, {400, 500}));
  EXPECT_THROW_WITH(choose_run_checkpoints(run, RunCheckpointChoice::last, 5), ConfigError, "has 4 step checkpoints",
                    "fewer than 5");
  EXPECT_THROW_WITH(choose_run_checkpoints(run, RunCheckpointChoice::best, 4), ConfigError,
                    "has 3 step checkpoints with a validation", "fewer than 4");
  EXPECT_THROW_WITH(choose_run_checkpoints(run, RunCheckpointChoice::last, 0), ConfigError, ">= 1");
  EXPECT_THROW_WITH(choose_run_checkpoints(dir.path("nothing"), RunCheckpointChoice::last, 1), IoError,
                    "no checkpoints/ directory");
  fs::remove(run + "/metrics.jsonl");
  EXPECT_THROW_WITH(choose_run_checkpoints(run, RunCheckpointChoice::best, 1), IoError, "metrics.jsonl");
}

}  // namespace
}  // namespace nmt
