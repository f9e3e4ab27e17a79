// The inside of a Trainer (internal to nmt/train; not installed): its state and the steps of a run,
// one purpose per file: trainer.cc (the run and its loop), trainer_setup.cc (start-up and
// --init-from), trainer_resume.cc, trainer_step.cc (one optimizer step), trainer_validation.cc
// and trainer_save.cc (a step's checkpoint).
#pragma once

#include <c10/core/Device.h>
#include <torch/optim/optimizer.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "nmt/core/logging.h"
#include "nmt/core/run_layout.h"
#include "nmt/core/signal_guard.h"
#include "nmt/data/epoch_batches.h"
#include "nmt/data/tokenizer.h"
#include "nmt/dist/gradient_sync.h"
#include "nmt/model/checkpoint.h"
#include "nmt/train/lr_schedule.h"
#include "nmt/train/progress_log.h"
#include "nmt/train/run_directory.h"
#include "nmt/train/trainer.h"
#include "nmt/train/training_data.h"
#include "nmt/train/training_group.h"
#include "nmt/train/training_state.h"
#include "nmt/train/validator.h"
#include "nmt/train/weight_ema.h"

namespace nmt {

// What one optimizer step tells the loop; equal on every rank of a group.
struct StepOutcome {
  StepNumbers numbers;
  bool finite = true;   // loss and norm finite: the step was taken
  int signal = 0;       // SIGINT or SIGTERM seen by any rank, else 0
  double elapsed = 0;   // rank 0's training seconds so far
};

struct Trainer::Impl {
  TrainConfig config;
  std::string config_text;  // to_toml(config): config.toml and every checkpoint
  RankInfo place;
  std::unique_ptr<TrainingGroup> group;
  c10::Device device{c10::kCPU};
  std::unique_ptr<RunDirectory> run_dir;  // rank 0's (the other ranks of a group write nothing)
  std::unique_ptr<ScopedLogFile> log_file;
  std::unique_ptr<ProgressLog> progress;
  std::unique_ptr<Tokenizer> source_tokenizer, target_tokenizer;
  std::unique_ptr<TrainingCorpus> corpus;
  std::unique_ptr<Validator> validator;  // rank 0's
  Seq2Seq model{nullptr};
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  std::unique_ptr<LrSchedule> schedule;
  std::unique_ptr<GradientSync> gradient_sync;  // a group's
  std::shared_ptr<Checkpoint> initial;  // init-from's (rank 0's), read once, until its parameters are taken
  std::unique_ptr<WeightEma> ema;  // rank 0's, with train.ema-decay > 0: what validation and checkpoints use
  TrainingState state;
  std::unique_ptr<EpochBatches> batches;  // the shared plan of every epoch; state.position mirrors it
  std::string last_checkpoint;
  std::int64_t bad_in_a_row = 0;  // non-finite steps in a row
  /// Rank 0's validations (step, value) whose step checkpoints checkpoint.keep-best may keep.
  std::vector<std::pair<std::int64_t, double>> validations;

  bool lead() const { return group->lead(); }
  /// What a signal during start-up leaves behind, for its line.
  std::string nothing_saved() const {
    return config.resume ? "the run is as it was; resume it to continue" : "no step was trained, no checkpoint written";
  }
  bool uses_ema() const { return config.train.ema_decay > 0; }
  /// The weights validation and checkpoints take: the moving average's, or the model's own.
  Seq2Seq& published_model() { return ema ? ema->shadow() : model; }
  /// The run directory's file names, also on ranks that do not hold the directory.
  RunLayout layout() const { return RunLayout(config.run_dir); }

  TrainResult run();
  // Set-up.
  void phase(const std::string& what, const std::function<void()>& work);
  void setup();
  void load_data_and_model();
  void resume();
  void start_from_initial_checkpoint();
  void restore_weights(const Checkpoint& checkpoint, const std::string& path);
  void plan_batches(const BatchPosition* start = nullptr);
  // Training.
  TrainResult loop();
  std::optional<StopReason> limit_reached_before_step() const;
  StepOutcome train_step(const SignalGuard& signals);
  void count_skipped_step(const StepOutcome& step);
  std::optional<StopReason> end_of_step(const StepOutcome& step);
  bool validate();  // returns whether early stopping ends the run
  void write_attention_maps(const ValidationResult& v) const;
  void save(bool with_best_copy);
  TrainResult finish(StopReason reason, int signal);
};

}  // namespace nmt
