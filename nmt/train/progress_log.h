// What a training run reports as it goes: a progress line every train.log-every steps (loss,
// perplexity, learning rate, gradient norm, speed, elapsed time and an estimate of the time left)
// and its metrics event, and each validation's event (nmt/data/metrics_events.h). It also keeps
// the run's clock, which a resumed run continues.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "nmt/data/metrics_events.h"
#include "nmt/train/train_config.h"
#include "nmt/train/validator.h"

namespace nmt {

class MetricsLog;

/// "1:02:03" (hours unbounded).
std::string format_duration(double seconds);

/// One optimizer step as the progress log counts it.
struct StepNumbers {
  double loss = 0, nll = 0;  // summed over the step's target tokens (every rank's)
  double norm = 0;           // gradient norm before clipping
  std::int64_t tokens = 0;   // the step's target tokens
};

class ProgressLog {
 public:
  /// `metrics` (RUN_DIR/metrics.jsonl) only on the rank that reports (null on the others, which
  /// keep the clock and the interval but write nothing). The clock starts now, at
  /// `elapsed_before` seconds (a resumed run's), with `first_step` the step before the first one.
  ProgressLog(const TrainConfig& config, std::unique_ptr<MetricsLog> metrics);
  ~ProgressLog();

  void start(double elapsed_before, std::int64_t first_step);
  /// Training seconds so far, resumes included.
  double elapsed() const;

  /// Counts a step taken, and seconds spent summing gradients over the ranks.
  void add(const StepNumbers& step) { interval_.add(step); }
  void add_sync_seconds(double seconds) { sync_seconds_ += seconds; }

  /// After step `step`: every train.log-every steps, the progress line and its event (when this
  /// rank reports), then a new interval from `now` (the step's agreed clock).
  void after_step(std::int64_t step, std::int64_t epoch, std::int64_t target_tokens, double lr, double now,
                  bool distributed);

  /// A validation: its line, the logged examples and its event (when this rank reports).
  void validation(const ValidationResult& result, const ValidEvent& event);

 private:
  // Sums over the steps since the last progress line.
  struct Interval {
    double loss = 0, nll = 0, norm = 0;
    std::int64_t tokens = 0, steps = 0;
    double start = 0;  // training seconds when it began
    void add(const StepNumbers& step);
  };
  /// Seconds left, from the pace since the start and the step and time limits (-1: unknown).
  double eta(std::int64_t step, double now) const;

  TrainingOptions limits_;  // log-every, and the step and time limits for the ETA
  std::unique_ptr<MetricsLog> metrics_;
  std::chrono::steady_clock::time_point clock_start_;
  double elapsed_before_ = 0;
  std::int64_t first_step_ = 0;
  Interval interval_;
  double sync_seconds_ = 0;  // since the last progress line: summing over ranks, waits included
};

}  // namespace nmt
