// The companion of a checkpoint that makes --resume continue exactly: optimizer moments, schedule,
// step, data position, random generator states and the validation history. Stored as a TorchScript
// archive next to the checkpoint (step-000500.pt + step-000500.state).
#pragma once

#include <torch/optim/optimizer.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "nmt/data/batching.h"

namespace nmt {

struct TrainingState {
  std::int64_t step = 0;                 // optimizer steps taken
  BatchPosition position;                // the next batch
  std::string schedule_json;             // LrSchedule::state_json()
  double best_metric = 0;                // best validation value so far (valid when validations > 0)
  std::int64_t validations = 0;
  std::int64_t bad_validations = 0;      // consecutive validations without improvement
  std::int64_t skipped_batches = 0;      // non-finite batches skipped so far
  double elapsed_seconds = 0;            // training time before this run (for train.max-minutes)
  std::int64_t target_tokens = 0;        // target tokens (labels) trained on so far, by all ranks
  std::int64_t world_size = 1;           // ranks of the run that wrote it (docs/distributed.md)
  /// CPU generator states of ranks 1 .. world_size-1 (rank 0's is the process's own, "cpu_rng").
  std::vector<at::Tensor> rank_generator_states;
  /// train.ema-decay of the run (0: no moving average). With one, the checkpoint holds the average
  /// and this state the raw weights the optimizer trains, by parameter name in the model's order.
  double ema_decay = 0;
  std::vector<std::pair<std::string, at::Tensor>> raw_weights;
};

/// Writes `state`, the optimizer's state and the CPU (and CUDA, if used) generator states atomically.
void save_training_state(const std::string& path, const TrainingState& state, torch::optim::Optimizer& optimizer);

/// Reads a state written by save_training_state into `optimizer` and the generators; returns the rest.
/// Throws IoError or DataError naming the file.
TrainingState load_training_state(const std::string& path, torch::optim::Optimizer& optimizer);

/// The same from the file's bytes (read by rank 0 of a group and sent to the others).
TrainingState load_training_state_from_bytes(const std::string& bytes, const std::string& path,
                                             torch::optim::Optimizer& optimizer);

}  // namespace nmt
