// Training curves from RUN_DIR/metrics.jsonl (docs/training.md, "Run directory"): loss, perplexity and
// dev BLEU against optimizer steps and against target tokens seen, one colour per run, training
// solid and dev dashed. What `nmt-plot metrics` draws.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "nmt/plot/figure.h"

namespace nmt::plot {

struct MetricPoint {
  double step = 0, loss = 0, ppl = 0;
  double target_tokens = 0;  // NaN in runs that did not log it (before nmt 0.1's target-token count)
  double bleu = 0;  // NaN where a validation measured none (metric loss)
};

struct RunMetrics {
  std::string label;
  std::vector<MetricPoint> train;  // "train" events, by step
  std::vector<MetricPoint> valid;  // "valid" events, by step
};

/// Reads RUN_DIR/metrics.jsonl. A resumed run writes the steps after its checkpoint again: the
/// last event of each step counts. Lines of other events are skipped, and so are lines that are not
/// JSON (a killed run's last line, cut short; a warning counts them); a train/valid event without
/// its numbers is a DataError naming the file and line (null, a non-finite value, is a gap); a
/// missing file an IoError; a file without train or valid events a DataError.
RunMetrics read_run_metrics(const std::string& run_dir, const std::string& label);

/// Two rows of three panels (loss, perplexity on a log scale, dev BLEU) against steps, then
/// against target tokens (left out when no run logged them).
std::unique_ptr<Figure> draw_training_curves(const std::vector<RunMetrics>& runs);

struct TrainingCurvesJob {
  std::vector<std::string> run_dirs;
  std::vector<std::string> labels;   // one per run; empty: the run directories' names
  std::vector<std::string> outputs;  // .svg/.png/.pdf files; empty (one run only): RUN_DIR/curves.svg and .png
};

/// Reads every run, draws them on one figure and writes each output atomically. Returns the paths
/// written. Throws ConfigError (options), IoError and DataError (the runs' metrics).
std::vector<std::string> write_training_curves(const TrainingCurvesJob& job);

}  // namespace nmt::plot
