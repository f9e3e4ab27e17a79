// Trainer: from a parallel corpus to checkpoints, resumable exactly (docs/training.md). The loop
// lives here; the run directory (run_directory.h), the group of ranks (training_group.h), the
// progress lines and metrics (progress_log.h), the data (training_data.h), the optimizer
// (optimizer.h) and validation (validator.h) are rooms of their own.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "nmt/core/enum_names.h"
#include "nmt/dist/dist_options.h"
#include "nmt/train/train_config.h"

namespace nmt {

struct Checkpoint;

/// Why a run ended.
enum class StopReason { max_steps, max_epochs, max_minutes, early_stopping, signal };
const EnumNames<StopReason>& enum_names(StopReason);  // "max steps", "max epochs", ...

struct TrainResult {
  std::int64_t steps = 0;        // optimizer steps at the end
  StopReason stop_reason = StopReason::max_steps;
  int signal = 0;                // SIGINT or SIGTERM when stopped by one, else 0
  std::string last_checkpoint;   // path of the final step checkpoint
  double best_metric = 0;        // best validation value (0 before any validation)
  std::int64_t skipped_batches = 0;
  std::int64_t target_tokens = 0;  // trained on so far, all ranks together
};

class Trainer {
 public:
  /// Throws ConfigError from config.validate(). The effective configuration (to_toml(config)) is
  /// written to the run directory and stored in every checkpoint. `rank`: this process's place in
  /// a data-parallel group (plan_launch); the default is one process. Rank 0 writes the run
  /// directory; the others only train (docs/distributed.md). `initial`: init-from's checkpoint as
  /// adopt_initial_checkpoint read it (rank 0 takes it rather than reading the file again); null,
  /// rank 0 reads it itself.
  explicit Trainer(TrainConfig config, RankInfo rank = {}, std::shared_ptr<Checkpoint> initial = nullptr);
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
