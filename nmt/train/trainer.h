// Trainer: from a parallel corpus to checkpoints, resumable exactly (docs/training.md).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "nmt/dist/dist_options.h"
#include "nmt/train/train_config.h"

namespace nmt {

struct TrainResult {
  std::int64_t steps = 0;        // optimizer steps at the end
  std::string stop_reason;       // "max steps", "max epochs", "max minutes", "early stopping", "signal"
  int signal = 0;                // SIGINT or SIGTERM when stopped by one, else 0
  std::string last_checkpoint;   // path of the final step checkpoint
  double best_metric = 0;        // best validation value (0 before any validation)
  std::int64_t skipped_batches = 0;
  std::int64_t target_tokens = 0;  // trained on so far, all ranks together
};

class Trainer {
 public:
  /// `config_text` is the effective configuration as the program printed it; it is written to the
  /// run directory and stored in every checkpoint. Throws ConfigError from config.validate().
  /// `rank`: this process's place in a data-parallel group (plan_launch); the default is one
  /// process. Rank 0 writes the run directory; the others only train (docs/distributed.md).
  Trainer(TrainConfig config, std::string config_text, RankInfo rank = {});
  ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  /// Trains until a limit is reached or SIGINT/SIGTERM arrives; both end with a checkpoint.
  TrainResult run();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nmt
