// The events of a training run's RUN_DIR/metrics.jsonl (docs/training.md, "Run directory"): one JSON
// object a line, written by the trainer (nmt/train/metrics_log.h) and read back by the training
// curves (nmt-plot metrics). The schema lives here and nowhere else.
//   {"event": "train", "step", "epoch", "target_tokens", "loss", "ppl", "lr", "grad_norm",
//    "tokens_per_s", "elapsed_s"[, "sync_s"]}
//   {"event": "valid", "step", "epoch", "target_tokens", "loss", "ppl", "bleu", "best", "seconds"}
// A non-finite number is written as null.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nmt {

/// A progress line's numbers: means over the steps since the previous one.
struct TrainEvent {
  std::int64_t step = 0;
  std::int64_t epoch = 0;          // from 1
  std::optional<std::int64_t> target_tokens;  // trained on so far, all ranks (absent in runs before nmt 0.1's count)
  double loss = 0;                 // label-smoothed loss per target token
  double ppl = 0;                  // exp(mean -log p) per target token
  double lr = 0;
  double grad_norm = 0;            // mean gradient norm before clipping
  double tokens_per_s = 0;
  double elapsed_s = 0;            // training seconds so far (resumes included)
  std::optional<double> sync_s;    // data-parallel runs: rank 0's seconds in the gradient sum
};

/// A validation's numbers.
struct ValidEvent {
  std::int64_t step = 0;
  std::int64_t epoch = 0;
  std::optional<std::int64_t> target_tokens;
  double loss = 0;                 // dev loss per target token
  double ppl = 0;
  double bleu = 0;                 // NaN where a file has none
  bool best = false;               // the best validation so far
  double seconds = 0;              // how long the validation took
};

/// The JSON line (without its newline).
std::string to_json(const TrainEvent& event);
std::string to_json(const ValidEvent& event);

/// A run's events, read back: the last event of each step (a resumed run repeats the steps after
/// its checkpoint), by step.
struct MetricsHistory {
  std::vector<TrainEvent> train;
  std::vector<ValidEvent> valid;
  std::size_t skipped_lines = 0;  // lines that are not JSON or not text: cut short by a killed run
};

/// Reads a metrics file (with TextLineReader). Lines of other events are skipped, and so are lines
/// that are not JSON or not UTF-8 text (NUL bytes a crash left: counted); a train or valid event
/// without its step, loss or perplexity is a DataError naming the file and line (null, a
/// non-finite value, reads as NaN). Throws IoError when the file cannot be read.
MetricsHistory read_metrics_events(const std::string& path);

}  // namespace nmt
