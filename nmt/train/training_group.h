// The trainer's view of the processes it trains with (docs/distributed.md): one process, or one
// rank of a data-parallel group. It runs start-up phases so that a failing rank stops the others
// at once, sends rank 0's bytes and parameters to the others, checks that every rank was given the
// same setup, agrees on each step's numbers, and keeps each rank's own dropout stream. For one
// process every operation is the identity (no communicator exists).
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nmt/dist/dist_options.h"
#include "nmt/data/tokenizer.h"
#include "nmt/data/tokenizer_training.h"
#include "nmt/train/train_config.h"
#include "nmt/train/training_state.h"

namespace nmt {

class Communicator;

/// What every rank must agree on after a step, summed or taken from rank 0.
struct StepAgreement {
  double loss = 0, nll = 0;  // the step's sums over every rank's target tokens
  double elapsed = 0;        // rank 0's training seconds (train.max-minutes)
  int signal = 0;            // SIGINT or SIGTERM seen by any rank, else 0
  double norm = 0;           // rank 0's gradient norm of the summed gradients
};

class TrainingGroup {
 public:
  /// `place`: this process in its group (one process: rank 0 of 1). A rank of a group connects
  /// to the others here (Communicator::connect with the config's dist options), before anything
  /// else, so that every later failure can be told to them.
  TrainingGroup(const RankInfo& place, const TrainConfig& config);
  ~TrainingGroup();

  bool lead() const { return place_.rank == 0; }  // rank 0 validates and writes the run directory
  int rank() const { return place_.rank; }
  int size() const { return place_.world_size; }
  const RankInfo& place() const { return place_; }
  Communicator* communicator() const { return comm_.get(); }  // null for one process

  /// The device `option` names (device: auto, cpu, cuda, cuda:N); a rank given "cuda" (or auto on
  /// CUDA) takes the GPU of its local rank.
  c10::Device device(const std::string& option) const;

  /// Runs one start-up phase on every rank and lets all of them know whether any failed, so that a
  /// rank never waits for a collective that a failed rank will not join. The failed rank rethrows
  /// its own error; the others stop with one naming it.
  void phase(const std::string& what, const std::function<void()>& work);

  /// Rank 0's bytes, on every rank (one process: `bytes` itself, moved, not copied).
  std::string from_lead(std::string bytes, const std::string& what);
  /// Rank 0's values of `tensors`, in place on every rank.
  void from_lead(std::vector<at::Tensor> tensors, const std::string& what);

  /// Ranks that disagree on options or data would train different models while summing their
  /// gradients: compares the options' digests by section (shared_setup_digests) and the training
  /// data's fingerprint once, before the first step. ConfigError naming the rank and what differs.
  void check_same_setup(const TrainConfig& config, std::uint64_t data_fingerprint, std::size_t pairs);

  /// Sums the step's loss, takes any rank's signal and rank 0's clock and norm: one all-reduce.
  StepAgreement agree_on_step(double loss, double nll, double elapsed, int signal, double norm);

  /// Every rank's CPU generator state; rank 0 keeps those of ranks 1.. (empty for one process).
  std::vector<at::Tensor> gather_generator_states();
  /// After the initial parameters: ranks above 0 draw their own dropout (rank 0 keeps the seed's).
  void start_own_dropout(std::uint64_t seed);
  /// On resume from `path`, a rank above 0 continues its own dropout stream: the state rank 0
  /// gathered for it, or a fresh seed from (seed, step) when the saved run had fewer ranks. Rank 0
  /// warns when the run had another number of ranks.
  void restore_own_dropout(const TrainingState& saved, const TrainConfig& config, const c10::Device& device,
                           const std::string& path);

  /// Rank 0 loaded (or trained) the subword models (`source`, `target`; null on the other ranks);
  /// the others take the same bytes from it, so no machine needs the files, and no two ranks can
  /// segment differently. Returns the models on ranks above 0, nothing on rank 0 or alone.
  std::optional<TokenizerPair> tokenizers_from_lead(const Tokenizer* source, const Tokenizer* target,
                                                    const DataOptions& data);

 private:
  RankInfo place_;
  std::unique_ptr<Communicator> comm_;
};

/// The CPU default generator's state, and setting it (rank 0's is saved in the training state).
at::Tensor cpu_generator_state();
void set_cpu_generator_state(const at::Tensor& state);

}  // namespace nmt
