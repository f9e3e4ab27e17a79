// Trainer: a run from start-up through the loop of steps to its end (trainer_impl.h lists the
// files of the steps).
#include "nmt/train/trainer_impl.h"

#include <sys/resource.h>

#include <csignal>

#include "nmt/core/exit_on_signal.h"
#include "nmt/core/log.h"
#include "nmt/train/initial_checkpoint.h"

namespace nmt {

const EnumNames<StopReason>& enum_names(StopReason) {
  static const EnumNames<StopReason> names(
      "stop reason", {{StopReason::max_steps, "max steps"}, {StopReason::max_epochs, "max epochs"},
                      {StopReason::max_minutes, "max minutes"}, {StopReason::early_stopping, "early stopping"},
                      {StopReason::signal, "signal"}});
  return names;
}

TrainResult Trainer::Impl::run() {
  if (place.distributed()) ExitOnSignal::now("joining the group of ranks", nothing_saved());
  group = std::make_unique<TrainingGroup>(place, config);  // a rank connects to its group first
  phase("starting", [&] { setup(); });
  phase("loading the subword models", [&] {
    if (!lead()) return;
    if (!config.init_from.empty()) {  // fine-tuning: the checkpoint's subword models
      if (!initial) initial = std::make_shared<Checkpoint>(load_checkpoint(initial_checkpoint_path(config)));
      source_tokenizer = std::make_unique<Tokenizer>(initial->source_tokenizer);
      target_tokenizer = std::make_unique<Tokenizer>(initial->target_tokenizer);
      return;
    }
    TokenizerPair pair = load_or_train_tokenizers(config);
    source_tokenizer = std::make_unique<Tokenizer>(std::move(pair.source));
    target_tokenizer = std::make_unique<Tokenizer>(std::move(pair.target));
  });
  if (auto shared = group->tokenizers_from_lead(source_tokenizer.get(), target_tokenizer.get(), config.data)) {
    source_tokenizer = std::make_unique<Tokenizer>(std::move(shared->source));
    target_tokenizer = std::make_unique<Tokenizer>(std::move(shared->target));
  }
  phase("loading the training data and building the model", [&] { load_data_and_model(); });
  group->check_same_setup(config, corpus->fingerprint(), corpus->corpus().size());
  phase("taking the initial checkpoint's parameters", [&] { start_from_initial_checkpoint(); });
  if (group->communicator()) {  // one starting point for every rank, then each its own dropout
    torch::NoGradGuard no_grad;
    group->from_lead(model->parameters(), "sending the initial parameters");
    group->start_own_dropout(config.seed);
  }
  if (uses_ema() && lead()) ema = std::make_unique<WeightEma>(model, config.train.ema_decay);
  if (config.resume) {
    resume();
  } else {
    phase("planning the first epoch", [&] { plan_batches(); });
  }
  TrainResult result = loop();
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  log().info("training ended ({}) at step {}; best {} {:.4f}; last checkpoint {}; peak memory {:.0f} MiB",
             name_of(result.stop_reason), result.steps, name_of(config.valid.metric), result.best_metric,
             result.last_checkpoint, static_cast<double>(usage.ru_maxrss) / 1024.0);
  return result;
}

TrainResult Trainer::Impl::loop() {
  // After the loop, only the closing lines are left: a signal ends the process (once the guard is gone).
  ExitOnSignal::now("ending the run", "its checkpoints are written");
  SignalGuard signals;  // SIGINT and SIGTERM save and stop at the next step
  progress->start(state.elapsed_seconds, state.step);
  for (;;) {
    if (const auto limit = limit_reached_before_step()) return finish(*limit, 0);
    const StepOutcome step = train_step(signals);
    if (!step.finite) {
      count_skipped_step(step);
      continue;
    }
    bad_in_a_row = 0;
    progress->add(step.numbers);
    state.elapsed_seconds = step.elapsed;
    progress->after_step(state.step, state.position.epoch + 1, state.target_tokens, schedule->rate(state.step),
                         step.elapsed, place.distributed());
    if (const auto stop = end_of_step(step)) return finish(*stop, step.signal);
  }
}

// The epochs or steps allowed are used up before the next step (a run resumed at its limit stops here).
std::optional<StopReason> Trainer::Impl::limit_reached_before_step() const {
  if (batches->exhausted()) return StopReason::max_epochs;
  if (config.train.max_steps > 0 && state.step >= config.train.max_steps) return StopReason::max_steps;
  return std::nullopt;
}

// After a step: a signal saves and stops; validation or a checkpoint when due; the step and time
// limits. Returns why the loop ends, if it does.
std::optional<StopReason> Trainer::Impl::end_of_step(const StepOutcome& step) {
  if (step.signal != 0) {  // any rank's: the whole group stops here, with one checkpoint
    save(false);
    if (lead()) {
      log().warn("stopped by {} at step {}: saved {}; resume the run to continue",
                 step.signal == SIGINT ? "SIGINT" : "SIGTERM", state.step, last_checkpoint);
    }
    return StopReason::signal;
  }
  if (config.valid.every > 0 && state.step % config.valid.every == 0) {
    if (validate()) return StopReason::early_stopping;
  } else if (config.checkpoint.every > 0 && state.step % config.checkpoint.every == 0) {
    save(false);
  }
  if (config.train.max_steps > 0 && state.step >= config.train.max_steps) return StopReason::max_steps;
  if (config.train.max_minutes > 0 && step.elapsed >= config.train.max_minutes * 60) return StopReason::max_minutes;
  return std::nullopt;
}

// Finishes with a validation (and its checkpoint) unless one just ran at this step, then the result.
TrainResult Trainer::Impl::finish(StopReason reason, int signal) {
  if (reason != StopReason::signal && reason != StopReason::early_stopping &&
      (config.valid.every == 0 || state.step % config.valid.every != 0)) {
    validate();  // the run ends anyway: its early-stopping verdict changes nothing
  }
  TrainResult result;
  result.steps = state.step;
  result.stop_reason = reason;
  result.signal = signal;
  result.best_metric = state.best_metric;
  result.skipped_batches = state.skipped_batches;
  result.target_tokens = state.target_tokens;
  result.last_checkpoint = last_checkpoint;
  return result;
}

Trainer::Trainer(TrainConfig config, RankInfo rank, std::shared_ptr<Checkpoint> initial)
    : impl_(std::make_unique<Impl>()) {
  impl_->config = std::move(config);
  impl_->config_text = to_toml(impl_->config);
  impl_->place = std::move(rank);
  if (impl_->place.rank == 0 && !impl_->config.init_from.empty()) impl_->initial = std::move(initial);
  impl_->config.validate();
}

Trainer::~Trainer() = default;

TrainResult Trainer::run() {
  try {
    return impl_->run();
  } catch (const std::exception& e) {
    // The error that ends a run belongs in its log too (the program prints it on stderr).
    if (impl_->log_file) impl_->log_file->write_error(e.what());
    throw;
  }
}

}  // namespace nmt
