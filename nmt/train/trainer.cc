#include "nmt/train/trainer.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/types.h>  // clip_grad.h needs it first
#include <torch/nn/utils/clip_grad.h>

#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <optional>
#include <set>

#include "nmt/core/blas_threads.h"
#include "nmt/core/error.h"
#include "nmt/core/file_io.h"
#include "nmt/core/log.h"
#include "nmt/core/logging.h"
#include "nmt/core/signal_guard.h"
#include "nmt/data/epoch_batches.h"
#include "nmt/data/metrics_events.h"
#include "nmt/dist/communicator.h"
#include "nmt/dist/gradient_sync.h"
#include "nmt/model/checkpoint.h"
#include "nmt/plot/attention_heatmap.h"
#include "nmt/train/autocast.h"
#include "nmt/train/initial_checkpoint.h"
#include "nmt/train/loss.h"
#include "nmt/train/lr_schedule.h"
#include "nmt/train/metrics_log.h"
#include "nmt/train/optimizer.h"
#include "nmt/train/progress_log.h"
#include "nmt/train/run_checkpoints.h"
#include "nmt/train/run_directory.h"
#include "nmt/train/training_data.h"
#include "nmt/train/training_group.h"
#include "nmt/train/training_state.h"
#include "nmt/train/validator.h"
#include "nmt/train/weight_ema.h"

namespace nmt {
namespace fs = std::filesystem;

const EnumNames<StopReason>& enum_names(StopReason) {
  static const EnumNames<StopReason> names(
      "stop reason", {{StopReason::max_steps, "max steps"}, {StopReason::max_epochs, "max epochs"},
                      {StopReason::max_minutes, "max minutes"}, {StopReason::early_stopping, "early stopping"},
                      {StopReason::signal, "signal"}});
  return names;
}

namespace {

// What one optimizer step tells the loop; equal on every rank of a group.
struct StepOutcome {
  StepNumbers numbers;
  bool finite = true;   // loss and norm finite: the step was taken
  int signal = 0;       // SIGINT or SIGTERM seen by any rank, else 0
  double elapsed = 0;   // rank 0's training seconds so far
};

}  // namespace

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
  std::unique_ptr<Checkpoint> initial;  // init-from's checkpoint (rank 0's), until its parameters are taken
  std::unique_ptr<WeightEma> ema;  // rank 0's, with train.ema-decay > 0: what validation and checkpoints use
  TrainingState state;
  std::unique_ptr<EpochBatches> batches;  // the shared plan of every epoch; state.position mirrors it
  std::string last_checkpoint;
  std::int64_t bad_in_a_row = 0;  // non-finite steps in a row
  /// Rank 0's validations (step, value) whose step checkpoints checkpoint.keep-best may keep.
  std::vector<std::pair<std::int64_t, double>> validations;

  bool lead() const { return group->lead(); }
  bool uses_ema() const { return config.train.ema_decay > 0; }
  /// The weights validation and checkpoints take: the moving average's, or the model's own.
  Seq2Seq& published_model() { return ema ? ema->shadow() : model; }
  fs::path checkpoints() const { return fs::path(config.run_dir) / "checkpoints"; }

  TrainResult run();
  // Set-up.
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

TrainResult Trainer::Impl::run() {
  group = std::make_unique<TrainingGroup>(place, config);  // a rank connects to its group first
  group->phase("starting", [&] { setup(); });
  group->phase("loading the subword models", [&] {
    if (!lead()) return;
    if (!config.init_from.empty()) {  // fine-tuning: the checkpoint's subword models
      initial = std::make_unique<Checkpoint>(load_checkpoint(initial_checkpoint_path(config)));
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
  group->phase("loading the training data and building the model", [&] { load_data_and_model(); });
  group->check_same_setup(config, corpus->corpus().fingerprint(), corpus->corpus().size());
  group->phase("taking the initial checkpoint's parameters", [&] { start_from_initial_checkpoint(); });
  if (group->communicator()) {  // one starting point for every rank, then each its own dropout
    torch::NoGradGuard no_grad;
    group->from_lead(model->parameters(), "sending the initial parameters");
    group->start_own_dropout(config.seed);
  }
  if (uses_ema() && lead()) ema = std::make_unique<WeightEma>(model, config.train.ema_decay);
  if (config.resume) {
    resume();
  } else {
    group->phase("planning the first epoch", [&] { plan_batches(); });
  }
  TrainResult result = loop();
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  log().info("training ended ({}) at step {}; best {} {:.4f}; last checkpoint {}; peak memory {:.0f} MiB",
             name_of(result.stop_reason), result.steps, name_of(config.valid.metric), result.best_metric,
             result.last_checkpoint, static_cast<double>(usage.ru_maxrss) / 1024.0);
  return result;
}

void Trainer::Impl::setup() {
  config.validate();
  std::unique_ptr<MetricsLog> metrics;
  if (lead()) {  // the other ranks of a group leave the run directory to rank 0
    run_dir = std::make_unique<RunDirectory>(config.run_dir, config.resume);
    log_file = std::make_unique<ScopedLogFile>((run_dir->path() / "train.log").string());
    if (run_dir->stale_temporaries() > 0) {
      log().info("removed {} temporary file(s) left by an interrupted run", run_dir->stale_temporaries());
    }
    write_file_atomic((run_dir->path() / "config.toml").string(), config_text);
    metrics = std::make_unique<MetricsLog>((run_dir->path() / "metrics.jsonl").string());
  }
  progress = std::make_unique<ProgressLog>(config, std::move(metrics));
  device = group->device(config.device);
  if (config.train.amp && !device.is_cuda()) throw ConfigError("train.amp needs a CUDA device, got " + device.str());
  at::set_num_threads(config.threads);
  // Explicitly, whatever the environment says: OpenBLAS's spinning threads take the core another
  // rank (or process) needs (docs/distributed.md, "Threads").
  const int blas = config.blas_threads > 0 ? config.blas_threads : config.threads;
  const bool blas_set = set_blas_threads(blas);
  at::manual_seed(config.seed);
  if (!lead()) return;
  log().info("nmt-train: run directory {}, device {}, {} CPU thread(s), {} BLAS thread(s){}", config.run_dir,
             device.str(), config.threads, blas_set ? std::to_string(blas) : "?",
             place.distributed() ? fmt::format(", rank 0 of {}", place.world_size) : "");
  log().info("effective configuration:\n{}", config_text);
}

void Trainer::Impl::load_data_and_model() {
  corpus = std::make_unique<TrainingCorpus>(config, *source_tokenizer, *target_tokenizer);
  if (lead()) {  // rank 0 validates
    validator = std::make_unique<Validator>(config.data, config.valid, config.train.label_smoothing,
                                            config.train.max_tokens, *source_tokenizer, *target_tokenizer);
    log().info("validation data: {} sentences for BLEU", validator->size());
  }
  ModelConfig model_config = config.model;
  model_config.source_vocab_size = source_tokenizer->vocab_size();
  model_config.target_vocab_size = target_tokenizer->vocab_size();
  model = Seq2Seq(model_config);
  model->to(device);
  model->train();
  std::int64_t parameters = 0;
  for (const auto& p : model->parameters()) parameters += p.numel();
  log().info("model: {} attention, {} decoder, {} parameters", name_of(model_config.attention),
             name_of(model_config.decoder_style), parameters);
  schedule = std::make_unique<LrSchedule>(config.schedule);
  optimizer = make_optimizer(model->parameters(), config.optim, schedule->rate(1));
  if (group->communicator()) {
    gradient_sync = std::make_unique<GradientSync>(
        model->parameters(), static_cast<std::int64_t>(config.dist.bucket_mb * (1 << 20)));
  }
}

// Rank 0 reads the checkpoint and its training state and sends their bytes to the other ranks:
// every rank restores the same parameters, optimizer moments and data position, and its own
// dropout generator (a run resumed with another number of ranks continues, with a warning).
void Trainer::Impl::resume() {
  RunDirectory::Latest latest;
  group->phase("reading the checkpoint to resume from", [&] {
    if (lead()) latest = run_dir->read_latest();
  });
  const std::string stem = group->from_lead(std::move(latest.stem), "sending the checkpoint");
  std::string checkpoint_bytes = group->from_lead(std::move(latest.checkpoint_bytes), "sending the checkpoint");
  std::string state_bytes = group->from_lead(std::move(latest.state_bytes), "sending the training state");
  const std::string checkpoint_path = (checkpoints() / (stem + ".pt")).string();
  group->phase("resuming from " + checkpoint_path, [&] {
    Checkpoint checkpoint = load_checkpoint_from_bytes(checkpoint_bytes, checkpoint_path, device);
    if (!(checkpoint.model->config() == model->config())) {
      throw ConfigError("cannot resume from " + checkpoint_path + ": its model config " +
                        checkpoint.model->config().to_json() + " differs from this one " + model->config().to_json());
    }
    if (checkpoint.source_tokenizer.model_bytes() != source_tokenizer->model_bytes() ||
        checkpoint.target_tokenizer.model_bytes() != target_tokenizer->model_bytes()) {
      throw ConfigError("cannot resume from " + checkpoint_path + ": its subword models differ from " +
                        config.data.source_spm);
    }
    state = load_training_state_from_bytes(state_bytes, (checkpoints() / (stem + ".state")).string(), *optimizer);
    restore_weights(checkpoint, checkpoint_path);
    schedule->restore_state(state.schedule_json);
    const BatchPosition saved = state.position;
    try {
      plan_batches(&saved);  // makes the saved epoch's (possibly sampled) corpus and plan
    } catch (const DataError& e) {
      throw ConfigError("cannot resume from " + checkpoint_path +
                        ": the training data, subword sampling or batching options changed since it was written (" +
                        e.what() + ")");
    }
    group->restore_own_dropout(state, config, device, checkpoint_path);
  });
  last_checkpoint = checkpoint_path;
  if (!lead()) return;
  run_dir->adopt_steps_up_to(state.step);  // the run's earlier checkpoints are its own (keep-last)
  if (config.checkpoint.keep_best > 0) {  // the validations of the steps it still has (keep-best)
    for (const ValidEvent& v : read_metrics_events((run_dir->path() / "metrics.jsonl").string()).valid) {
      std::error_code ec;
      if (v.step <= state.step && fs::exists(RunDirectory::checkpoint_path(config.run_dir, v.step), ec)) {
        validations.emplace_back(v.step, config.valid.metric == ValidationMetric::bleu ? v.bleu : v.loss);
      }
    }
  }
  log().info("resumed from {} at step {}, epoch {}, batch {}", checkpoint_path, state.step, state.position.epoch + 1,
             state.position.batch);
}

// On resume: the model's weights are the checkpoint's, or with a moving average the training
// state's raw weights, the average (rank 0's) taking the checkpoint's.
void Trainer::Impl::restore_weights(const Checkpoint& checkpoint, const std::string& path) {
  if (state.ema_decay != config.train.ema_decay) {
    throw ConfigError(fmt::format("cannot resume from {}: its run had train.ema-decay {}, this one {}; resume with {}",
                                  path, state.ema_decay, config.train.ema_decay, state.ema_decay));
  }
  torch::NoGradGuard no_grad;
  if (!uses_ema()) {
    copy_weights(checkpoint.model, model);
    return;
  }
  auto parameters = model->named_parameters();
  if (state.raw_weights.size() != parameters.size()) {
    throw DataError(fmt::format("training state of {} holds {} raw weights for a model of {} parameters", path,
                                state.raw_weights.size(), parameters.size()));
  }
  for (const auto& [name, value] : state.raw_weights) {
    at::Tensor* p = parameters.find(name);
    if (p == nullptr || !p->sizes().equals(value.sizes())) {
      throw DataError("training state of " + path + ": raw weight " + name + " does not fit the model");
    }
    p->copy_(value);
  }
  state.raw_weights.clear();  // a whole model's copy, not needed again
  if (ema) ema->restore(checkpoint.model);
}

// init-from, on rank 0 (the parameters then go to the other ranks): a new run starts from the
// checkpoint's parameters; a resumed one from its own checkpoint, later.
void Trainer::Impl::start_from_initial_checkpoint() {
  if (!initial) return;
  ModelConfig theirs = initial->model->config();
  theirs.dropout = model->config().dropout;  // the one option a fine-tuning run may change
  if (!(theirs == model->config())) {
    throw ConfigError("init-from " + config.init_from + ": its model " + theirs.to_json() + " is not this run's " +
                      model->config().to_json() + " (nmt-train takes the architecture from the checkpoint)");
  }
  if (!config.resume) {
    copy_weights(initial->model, model);
    log().info("initialised from {} (fine-tuning: a fresh optimizer and learning-rate schedule)", config.init_from);
  }
  initial.reset();
}

// The epochs' batches, from epoch 0 or from `start`.
void Trainer::Impl::plan_batches(const BatchPosition* start) {
  BatchingOptions batching;
  batching.max_tokens = config.train.max_tokens;
  batching.seed = config.seed;
  batching.step_batches = config.train.accumulate * group->size();  // a step's batches, neighbours in length
  const ParallelCorpus& base = corpus->corpus();
  batches = start ? std::make_unique<EpochBatches>(base, batching, config.train.max_epochs,
                                                   corpus->corpus_for_epoch(), *start)
                  : std::make_unique<EpochBatches>(base, batching, config.train.max_epochs, corpus->corpus_for_epoch());
  state.position = batches->position();
}

TrainResult Trainer::Impl::loop() {
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

// One optimizer step over world_size x train.accumulate consecutive batches of the epoch plan:
// every rank walks the same plan and computes the batches at positions rank, rank + world_size,
// ... of the step; gradients are summed over the ranks. The loss is normalised by the step's
// target tokens on all ranks, so W ranks take exactly the step of one process accumulating all
// W x accumulate batches, up to the order of float sums (docs/distributed.md, "Semantics").
StepOutcome Trainer::Impl::train_step(const SignalGuard& signals) {
  const int world = group->size();
  const StepShare share = batches->take_step(config.train.accumulate * world, world, group->rank());
  state.position = batches->position();
  const std::int64_t step_tokens = share.target_tokens;
  optimizer->zero_grad();
  // With dist.overlap, the gradient sum starts during the step's last backward (GradientSync::arm);
  // a rank without a batch this step has no backward to overlap and sums after it.
  const bool overlap = gradient_sync && config.dist.overlap && !share.batches.empty();
  double step_loss = 0, step_nll = 0;
  for (std::size_t i = 0; i < share.batches.size(); ++i) {
    const Batch batch = share.batches[i].to(device);
    at::Tensor loss;
    {
      AutocastGuard autocast(config.train.amp);
      const auto out = model->forward(batch.source, batch.source_lengths, batch.target_in);
      const LossSums sums = label_smoothed_cross_entropy(out.logits.reshape({-1, out.logits.size(-1)}),
                                                         batch.target_out.reshape(-1), config.train.label_smoothing);
      loss = sums.loss;
      step_nll += sums.nll.item<double>();
    }
    if (overlap && i + 1 == share.batches.size()) gradient_sync->arm(*group->communicator());
    (loss / static_cast<double>(step_tokens)).backward();
    step_loss += loss.item<double>();
  }
  StepOutcome outcome;
  outcome.signal = signals.received();
  outcome.elapsed = progress->elapsed();
  const double max_norm = config.train.clip_norm > 0 ? config.train.clip_norm : INFINITY;
  if (!group->communicator()) {
    outcome.numbers.norm = torch::nn::utils::clip_grad_norm_(model->parameters(), max_norm);
  } else {
    const auto sync_start = std::chrono::steady_clock::now();
    if (overlap) {
      gradient_sync->finish();
    } else {
      gradient_sync->all_reduce(*group->communicator());
    }
    const double norm = torch::nn::utils::clip_grad_norm_(model->parameters(), INFINITY);  // measures only
    const StepAgreement agreed = group->agree_on_step(step_loss, step_nll, outcome.elapsed, outcome.signal, norm);
    step_loss = agreed.loss;
    step_nll = agreed.nll;
    outcome.elapsed = agreed.elapsed;
    outcome.signal = agreed.signal;
    outcome.numbers.norm = agreed.norm;
    progress->add_sync_seconds(std::chrono::duration<double>(std::chrono::steady_clock::now() - sync_start).count());
    scale_gradients_to_norm(model->parameters(), max_norm, agreed.norm);  // the group's norm, one factor
  }
  outcome.finite = std::isfinite(step_loss) && std::isfinite(outcome.numbers.norm);
  if (!outcome.finite) {
    optimizer->zero_grad();
    return outcome;
  }
  set_learning_rate(*optimizer, schedule->rate(state.step + 1));
  optimizer->step();
  ++state.step;
  if (ema) ema->update(model, state.step);
  state.target_tokens += step_tokens;
  outcome.numbers.loss = step_loss;
  outcome.numbers.nll = step_nll;
  outcome.numbers.tokens = step_tokens;
  return outcome;
}

// A step with a non-finite loss or gradient was skipped: too many in a row stop the run.
void Trainer::Impl::count_skipped_step(const StepOutcome& step) {
  ++state.skipped_batches;
  if (lead()) log().warn("step {}: non-finite loss or gradient norm ({}); batch skipped", state.step + 1, step.numbers.norm);
  if (++bad_in_a_row >= config.train.max_bad_batches) {
    throw Error(fmt::format("training stopped: {} batches in a row had a non-finite loss or gradient at step {};"
                            " lower optim.lr or train.clip-norm, or check the data",
                            bad_in_a_row, state.step + 1));
  }
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

// Rank 0 validates while the others wait (at most dist.timeout) for the value, from which every
// rank draws the same conclusions (best, early stopping, the plateau schedule).
bool Trainer::Impl::validate() {
  const auto start = std::chrono::steady_clock::now();
  ValidationResult v;
  at::Tensor value = at::zeros({1}, at::kDouble);
  if (lead()) {
    v = validator->run(published_model(), device);
    value.fill_(ValidationResult::metric(v, config.valid.metric));
  }
  group->from_lead({value}, "waiting for rank 0's validation at step " + std::to_string(state.step));
  const double metric = value.item<double>();
  if (!std::isfinite(metric) && lead()) {
    log().warn("validation at step {}: {} is {}, not a number to compare", state.step, name_of(config.valid.metric),
               metric);
  }
  const bool better = record_validation(metric, config.valid.metric, state);
  validations.emplace_back(state.step, metric);
  schedule->on_validation(better);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (lead()) {
    progress->validation(v, {state.step, state.position.epoch + 1, state.target_tokens, v.loss, v.perplexity, v.bleu,
                             better, seconds});
    write_attention_maps(v);
  }
  save(better);
  return config.valid.patience > 0 && state.bad_validations >= config.valid.patience;
}

// Heat-maps of the examples' attention in RUN_DIR/attention/step-N/ (N as the checkpoints number
// it). A picture that cannot be written costs a warning, never the training.
void Trainer::Impl::write_attention_maps(const ValidationResult& v) const {
  if (v.example_attention.empty()) return;
  const std::string dir = run_dir->attention_dir(state.step);
  try {
    plot::HeatmapOptions options;
    options.name = "step " + std::to_string(state.step) + ", example";
    plot::write_attention_heatmaps(v.example_attention, dir, config.valid.attention_maps.formats, options);
  } catch (const std::exception& e) {
    log().warn("validation at step {}: no attention heat-maps in {}: {}", state.step, dir, e.what());
  }
}

// Every rank calls it (at the same step): rank 0 gathers the ranks' generator states and writes.
void Trainer::Impl::save(bool with_best_copy) {
  state.world_size = group->size();
  if (group->communicator()) state.rank_generator_states = group->gather_generator_states();
  last_checkpoint = RunDirectory::checkpoint_path(config.run_dir, state.step);
  if (!lead()) return;
  state.schedule_json = schedule->state_json();
  state.ema_decay = config.train.ema_decay;
  state.raw_weights.clear();
  if (ema) {
    for (const auto& p : model->named_parameters()) state.raw_weights.emplace_back(p.key(), p.value());
  }
  save_checkpoint(last_checkpoint, published_model(), *source_tokenizer, *target_tokenizer, config_text);
  save_training_state(run_dir->state_path(state.step), state, *optimizer);
  run_dir->set_latest(state.step);
  if (with_best_copy) {
    save_checkpoint((run_dir->path() / "best.pt").string(), published_model(), *source_tokenizer, *target_tokenizer,
                    config_text);
  }
  // Keep this run's newest keep_last step checkpoints and those of its keep_best best validations;
  // never the one `latest` names, never another run's files (RunDirectory refuses to start among them).
  const auto best = best_steps(validations, config.valid.metric, static_cast<std::size_t>(config.checkpoint.keep_best));
  run_dir->keep_last(state.step, config.checkpoint.keep_last, std::set<std::int64_t>(best.begin(), best.end()));
  log().info("saved {}", last_checkpoint);
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

Trainer::Trainer(TrainConfig config, RankInfo rank) : impl_(std::make_unique<Impl>()) {
  impl_->config = std::move(config);
  impl_->config_text = to_toml(impl_->config);
  impl_->place = std::move(rank);
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
