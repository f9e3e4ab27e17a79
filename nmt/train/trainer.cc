#include "nmt/train/trainer.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/autocast_mode.h>
#include <nlohmann/json.hpp>
#include <torch/types.h>  // clip_grad.h needs it first
#include <torch/nn/utils/clip_grad.h>
#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/version.h>

#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <map>
#include <regex>

#include "nmt/core/device.h"
#include "nmt/core/error.h"
#include "nmt/core/log.h"
#include "nmt/core/file_io.h"
#include "nmt/core/lock_file.h"
#include "nmt/core/thread_count.h"
#include "nmt/core/logging.h"
#include "nmt/data/batch.h"
#include "nmt/data/batching.h"
#include "nmt/data/parallel_corpus.h"
#include "nmt/data/text_file.h"
#include "nmt/model/checkpoint.h"
#include "nmt/train/loss.h"
#include "nmt/train/metrics_log.h"
#include "nmt/train/training_state.h"
#include "nmt/train/validator.h"

namespace nmt {
namespace fs = std::filesystem;
namespace {

std::atomic<int> g_signal{0};
extern "C" void on_signal(int signal) { g_signal.store(signal); }

// Installs SIGINT/SIGTERM handlers that only set a flag; the loop saves and stops at the next step.
class SignalGuard {
 public:
  SignalGuard() {
    g_signal.store(0);
    struct sigaction action {};
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
  }
  ~SignalGuard() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

// bfloat16 autocast on CUDA for the forward pass (no loss scaling needed with bfloat16).
class AutocastGuard {
 public:
  explicit AutocastGuard(bool enabled) : enabled_(enabled) {
    if (!enabled_) return;
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
    at::autocast::set_autocast_dtype(at::kCUDA, at::kBFloat16);
    at::autocast::set_autocast_enabled(at::kCUDA, true);
#else
    at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
    at::autocast::set_enabled(true);
#endif
  }
  ~AutocastGuard() {
    if (!enabled_) return;
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
    at::autocast::set_autocast_enabled(at::kCUDA, false);
#else
    at::autocast::set_enabled(false);
#endif
    at::autocast::clear_cache();
  }

 private:
  bool enabled_;
};

std::string format_duration(double seconds) {
  const auto s = static_cast<long long>(seconds);
  return fmt::format("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
}

std::unique_ptr<torch::optim::Optimizer> make_optimizer(Seq2Seq& model, const OptimizerOptions& o, double lr) {
  if (o.type == OptimizerType::adamw) {
    return std::make_unique<torch::optim::AdamW>(
        model->parameters(),
        torch::optim::AdamWOptions(lr).betas({o.beta1, o.beta2}).eps(o.eps).weight_decay(o.weight_decay));
  }
  return std::make_unique<torch::optim::Adam>(
      model->parameters(),
      torch::optim::AdamOptions(lr).betas({o.beta1, o.beta2}).eps(o.eps).weight_decay(o.weight_decay));
}

void set_learning_rate(torch::optim::Optimizer& optimizer, double lr) {
  for (auto& group : optimizer.param_groups()) group.options().set_lr(lr);
}

// Checkpoint files are named by step: step-00000500.pt and its step-00000500.state.
std::string step_stem(std::int64_t step) { return fmt::format("step-{:08}", step); }

// The step files in `directory` (.pt or .state), by step, ascending.
std::map<std::int64_t, std::string> step_files(const fs::path& directory) {
  static const std::regex pattern(R"(step-(\d{8,})\.(pt|state))");
  std::map<std::int64_t, std::string> found;
  std::error_code ec;
  for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::smatch match;
    if (std::regex_match(name, match, pattern)) found.emplace(std::stoll(match[1].str()), name);
  }
  return found;
}

}  // namespace

struct Trainer::Impl {
  TrainConfig config;
  std::string config_text;
  c10::Device device{c10::kCPU};
  std::unique_ptr<Tokenizer> source_tokenizer, target_tokenizer;
  std::unique_ptr<ParallelCorpus> corpus;            // best segmentation, filtered
  std::vector<std::string> source_texts, target_texts;  // kept pairs' text, for subword sampling
  std::unique_ptr<ParallelCorpus> epoch_corpus;      // this epoch's sampled segmentation
  std::unique_ptr<Validator> validator;
  Seq2Seq model{nullptr};
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  std::unique_ptr<LrSchedule> schedule;
  std::unique_ptr<MetricsLog> metrics;
  std::unique_ptr<ScopedLogFile> log_file;
  BatchingOptions batching;
  TrainingState state;
  std::vector<std::vector<std::size_t>> plan;  // batches of state.position.epoch
  std::string last_checkpoint;
  std::unique_ptr<LockFile> run_lock;
  std::vector<std::int64_t> own_steps;  // step checkpoints this run wrote, oldest first (keep-last removes them)

  fs::path run_dir() const { return config.run_dir; }
  fs::path checkpoint_dir() const { return run_dir() / "checkpoints"; }

  void setup();
  void check_run_directory() const;
  std::string latest_stem() const;
  void load_tokenizers();
  void load_data();
  void build_model();
  void resume();
  const ParallelCorpus& training_corpus() const { return epoch_corpus ? *epoch_corpus : *corpus; }
  // The last batch of the last allowed epoch has been taken.
  bool epochs_done() const {
    return config.train.max_epochs > 0 && state.position.epoch >= config.train.max_epochs - 1 &&
           static_cast<std::size_t>(state.position.batch) >= plan.size();
  }
  void start_epoch(std::int64_t epoch);
  std::vector<std::size_t> next_batch();
  double train_step(double& loss_sum, double& nll_sum, std::int64_t& tokens, bool& finite);
  void validate(TrainResult& result, bool& stop);
  void save(bool with_best_copy);
  TrainResult loop();
  TrainResult run();
};

void Trainer::Impl::setup() {
  config.validate();
  std::error_code ec;
  fs::create_directories(checkpoint_dir(), ec);
  if (ec) throw IoError("cannot create run directory " + run_dir().string() + ": " + ec.message());
  // One trainer per run directory, before anything in it is read or written.
  run_lock = std::make_unique<LockFile>((run_dir() / "train.lock").string(), "run directory " + run_dir().string());
  const int stale = remove_stale_temporaries(run_dir().string()) + remove_stale_temporaries(checkpoint_dir().string());
  check_run_directory();
  log_file = std::make_unique<ScopedLogFile>((run_dir() / "train.log").string());
  if (stale > 0) log().info("removed {} temporary file(s) left by an interrupted run", stale);
  write_file_atomic((run_dir() / "config.toml").string(), config_text);
  metrics = std::make_unique<MetricsLog>((run_dir() / "metrics.jsonl").string());
  device = parse_device(config.device);
  if (config.train.amp && !device.is_cuda()) throw ConfigError("train.amp needs a CUDA device, got " + device.str());
  at::set_num_threads(config.threads);
  at::manual_seed(config.seed);
  log().info("nmt-train: run directory {}, device {}, {} CPU thread(s)", run_dir().string(), device.str(),
               config.threads);
  log().info("effective configuration:\n{}", config_text);
}

// A run directory holds one run. Without `latest`, step files or a best.pt belong to some other
// run (or one whose `latest` was removed): a new run would overwrite them and keep-last would
// delete them, so refuse and say what to do.
void Trainer::Impl::check_run_directory() const {
  if (config.resume) return;  // resume() reads `latest`
  if (fs::exists(checkpoint_dir() / "latest")) {
    throw ConfigError("run directory " + run_dir().string() +
                      " already holds a training run: resume it (--resume), or choose another run directory");
  }
  const auto steps = step_files(checkpoint_dir());
  if (steps.empty() && !fs::exists(run_dir() / "best.pt")) return;
  const std::string example = steps.empty() ? "best.pt" : "checkpoints/" + steps.begin()->second;
  throw ConfigError("run directory " + run_dir().string() + " holds checkpoints of another run (" + example +
                    (steps.size() > 1 ? " and " + std::to_string(steps.size() - 1) + " more" : std::string()) +
                    ") but no checkpoints/latest: move them away, or choose another run directory");
}

// The checkpoint stem `latest` names, checked: a damaged `latest` is an error naming it.
std::string Trainer::Impl::latest_stem() const {
  const fs::path latest = checkpoint_dir() / "latest";
  std::string stem = read_file(latest.string());
  while (!stem.empty() && (stem.back() == '\n' || stem.back() == '\r' || stem.back() == ' ')) stem.pop_back();
  static const std::regex pattern(R"(step-\d{8,})");
  if (!std::regex_match(stem, pattern)) {
    throw DataError(latest.string() + " does not name a checkpoint (expected step-NNNNNNNN, got '" +
                    stem.substr(0, 40) + "')");
  }
  if (!fs::exists(checkpoint_dir() / (stem + ".pt")) || !fs::exists(checkpoint_dir() / (stem + ".state"))) {
    throw DataError(latest.string() + " names " + stem + ", but " + stem + ".pt or " + stem + ".state is missing in " +
                    checkpoint_dir().string());
  }
  return stem;
}

void Trainer::Impl::load_tokenizers() {
  const DataOptions& d = config.data;
  const bool joint = d.target_spm.empty();
  const bool have = fs::exists(d.source_spm) && (joint || fs::exists(d.target_spm));
  if (have) {
    source_tokenizer = std::make_unique<Tokenizer>(Tokenizer::load(d.source_spm));
    target_tokenizer = std::make_unique<Tokenizer>(joint ? *source_tokenizer : Tokenizer::load(d.target_spm));
    return;
  }
  log().info("subword model {} not found: training it on the training data", joint ? d.source_spm : d.target_spm);
  TokenizerPairOptions options;
  options.joint = joint;
  options.source_model_path = d.source_spm;
  options.target_model_path = d.target_spm;
  options.common.model_type = d.spm_type;
  options.common.vocab_size = d.vocab_size;
  options.common.seed = static_cast<std::uint32_t>(config.seed);
  auto pair = train_tokenizer_pair({d.train_source}, {d.train_target}, options);
  source_tokenizer = std::make_unique<Tokenizer>(pair.source);
  target_tokenizer = std::make_unique<Tokenizer>(pair.target);
}

void Trainer::Impl::load_data() {
  CorpusFilterOptions filter;
  filter.max_length = config.data.max_length;
  filter.max_length_ratio = config.data.max_length_ratio;
  corpus = std::make_unique<ParallelCorpus>(ParallelCorpus::load(
      config.data.train_source, config.data.train_target, *source_tokenizer, *target_tokenizer, filter));
  const CorpusCounts& c = corpus->counts();
  log().info("training data: {} pairs kept of {} ({} empty, {} too long, {} bad length ratio); {} + {} subwords",
               c.kept, c.lines, c.empty, c.too_long, c.bad_ratio, corpus->source_tokens(), corpus->target_tokens());
  if (corpus->size() == 0) throw DataError("no training pairs left in " + config.data.train_source + " after filtering");
  if (config.train.sampling_alpha > 0) {
    // Subword sampling re-segments the kept pairs every epoch: keep their text.
    TextLineReader sources(config.data.train_source), targets(config.data.train_target);
    std::string source, target;
    std::size_t next = 0;
    while (next < corpus->size() && sources.next(source) && targets.next(target)) {
      if (sources.line_number() == corpus->line_number(next)) {
        source_texts.push_back(source);
        target_texts.push_back(target);
        ++next;
      }
    }
  }
  batching.max_tokens = config.train.max_tokens;
  batching.seed = config.seed;
  validator = std::make_unique<Validator>(config.data, config.valid, config.train.label_smoothing,
                                          config.train.max_tokens, *source_tokenizer, *target_tokenizer);
  log().info("validation data: {} sentences for BLEU", validator->size());
}

void Trainer::Impl::build_model() {
  ModelConfig model_config = config.model;
  model_config.source_vocab_size = source_tokenizer->vocab_size();
  model_config.target_vocab_size = target_tokenizer->vocab_size();
  model = Seq2Seq(model_config);
  model->to(device);
  model->train();
  std::int64_t parameters = 0;
  for (const auto& p : model->parameters()) parameters += p.numel();
  log().info("model: {} attention, {} decoder, {} parameters", to_string(model_config.attention),
               to_string(model_config.decoder_style), parameters);
  schedule = std::make_unique<LrSchedule>(config.schedule);
  optimizer = make_optimizer(model, config.optim, schedule->rate(1));
}

void Trainer::Impl::resume() {
  if (!fs::exists(checkpoint_dir() / "latest")) {
    throw ConfigError("cannot resume: no checkpoint in " + checkpoint_dir().string() + " (start without resuming)");
  }
  const std::string stem = latest_stem();
  const std::string checkpoint_path = (checkpoint_dir() / (stem + ".pt")).string();
  Checkpoint checkpoint = load_checkpoint(checkpoint_path, device);
  if (!(checkpoint.model->config() == model->config())) {
    throw ConfigError("cannot resume from " + checkpoint_path + ": its model config " +
                      checkpoint.model->config().to_json() + " differs from this one " + model->config().to_json());
  }
  if (checkpoint.source_tokenizer.model_bytes() != source_tokenizer->model_bytes() ||
      checkpoint.target_tokenizer.model_bytes() != target_tokenizer->model_bytes()) {
    throw ConfigError("cannot resume from " + checkpoint_path + ": its subword models differ from " +
                      config.data.source_spm);
  }
  {
    torch::NoGradGuard no_grad;
    auto loaded = checkpoint.model->named_parameters();
    for (auto& p : model->named_parameters()) p.value().copy_(loaded[p.key()]);
  }
  state = load_training_state((checkpoint_dir() / (stem + ".state")).string(), *optimizer);
  schedule->restore_state(state.schedule_json);
  const BatchPosition saved = state.position;
  start_epoch(saved.epoch);  // rebuilds the epoch's (possibly sampled) corpus and plan
  const BatchPosition expected{saved.epoch, saved.batch, batching.seed, batching.digest(),
                               training_corpus().fingerprint()};
  if (!(expected == saved) || static_cast<std::size_t>(saved.batch) > plan.size()) {
    throw ConfigError("cannot resume from " + checkpoint_path +
                      ": the training data, subword sampling or batching options changed since it was written");
  }
  state.position = saved;
  last_checkpoint = checkpoint_path;
  // The run's earlier checkpoints are its own: keep-last may remove them. Step files above the
  // resumed step (written after `latest` was last set, by a process that then died) are left alone.
  for (const auto& [step, name] : step_files(checkpoint_dir())) {
    if (step <= state.step && (own_steps.empty() || own_steps.back() != step)) own_steps.push_back(step);
  }
  log().info("resumed from {} at step {}, epoch {}, batch {}", checkpoint_path, state.step, state.position.epoch + 1,
               state.position.batch);
}

void Trainer::Impl::start_epoch(std::int64_t epoch) {
  if (config.train.sampling_alpha > 0) {
    const SamplingOptions sampling{static_cast<float>(config.train.sampling_alpha), -1};
    const auto seed = static_cast<std::uint32_t>(config.seed * 1000003u + static_cast<std::uint64_t>(epoch));
    auto sources = source_tokenizer->sample_encode(source_texts, sampling, seed);
    auto targets = target_tokenizer->sample_encode(target_texts, sampling, seed ^ 0x9E3779B9u);
    // A sampled segmentation is longer than the best one; keep the best where it would break the limit.
    for (std::size_t i = 0; i < sources.size(); ++i) {
      const auto limit = static_cast<std::size_t>(config.data.max_length > 0 ? config.data.max_length : INT32_MAX);
      if (sources[i].size() > limit || targets[i].size() > limit) {
        sources[i].assign(corpus->source(i).begin(), corpus->source(i).end());
        targets[i].assign(corpus->target(i).begin(), corpus->target(i).end());
      }
    }
    epoch_corpus = std::make_unique<ParallelCorpus>(ParallelCorpus::from_sequences(sources, targets));
  }
  plan = plan_epoch(training_corpus(), batching, epoch);
  state.position = {epoch, 0, batching.seed, batching.digest(), training_corpus().fingerprint()};
}

std::vector<std::size_t> Trainer::Impl::next_batch() {
  if (static_cast<std::size_t>(state.position.batch) >= plan.size()) start_epoch(state.position.epoch + 1);
  return plan[static_cast<std::size_t>(state.position.batch++)];
}

// One optimizer step over train.accumulate batches; the loss is normalised by all their target tokens.
double Trainer::Impl::train_step(double& loss_sum, double& nll_sum, std::int64_t& tokens, bool& finite) {
  std::vector<Batch> batches;
  std::int64_t step_tokens = 0;
  for (std::int64_t k = 0; k < config.train.accumulate; ++k) {
    if (epochs_done()) break;
    batches.push_back(make_batch(training_corpus(), next_batch()));
    step_tokens += batches.back().target_tokens;
  }
  optimizer->zero_grad();
  double step_loss = 0, step_nll = 0;
  for (const Batch& cpu_batch : batches) {
    const Batch batch = cpu_batch.to(device);
    at::Tensor loss;
    {
      AutocastGuard autocast(config.train.amp);
      const auto out = model->forward(batch.source, batch.source_lengths, batch.target_in);
      const LossSums sums = label_smoothed_cross_entropy(out.logits.reshape({-1, out.logits.size(-1)}),
                                                         batch.target_out.reshape(-1), config.train.label_smoothing);
      loss = sums.loss;
      step_nll += sums.nll.item<double>();
    }
    (loss / static_cast<double>(step_tokens)).backward();
    step_loss += loss.item<double>();
  }
  const double max_norm = config.train.clip_norm > 0 ? config.train.clip_norm : INFINITY;
  const double norm = torch::nn::utils::clip_grad_norm_(model->parameters(), max_norm);
  finite = std::isfinite(step_loss) && std::isfinite(norm);
  if (!finite) {
    optimizer->zero_grad();
    return norm;
  }
  set_learning_rate(*optimizer, schedule->rate(state.step + 1));
  optimizer->step();
  ++state.step;
  loss_sum += step_loss;
  nll_sum += step_nll;
  tokens += step_tokens;
  return norm;
}

void Trainer::Impl::save(bool with_best_copy) {
  const std::string stem = step_stem(state.step);
  const fs::path checkpoint = checkpoint_dir() / (stem + ".pt");
  state.schedule_json = schedule->state_json();
  save_checkpoint(checkpoint.string(), model, *source_tokenizer, *target_tokenizer, config_text);
  save_training_state((checkpoint_dir() / (stem + ".state")).string(), state, *optimizer);
  write_file_atomic((checkpoint_dir() / "latest").string(), stem);
  if (with_best_copy) save_checkpoint((run_dir() / "best.pt").string(), model, *source_tokenizer, *target_tokenizer, config_text);
  last_checkpoint = checkpoint.string();
  if (own_steps.empty() || own_steps.back() != state.step) own_steps.push_back(state.step);
  // Keep this run's newest keep_last step checkpoints; never the one `latest` names, never
  // another run's files (check_run_directory refuses to start among them).
  while (own_steps.size() > static_cast<std::size_t>(config.checkpoint.keep_last)) {
    const std::int64_t oldest = own_steps.front();
    own_steps.erase(own_steps.begin());
    if (oldest == state.step) continue;
    std::error_code ec;
    fs::remove(checkpoint_dir() / (step_stem(oldest) + ".state"), ec);
    fs::remove(checkpoint_dir() / (step_stem(oldest) + ".pt"), ec);
  }
  log().info("saved {}", checkpoint.string());
}

void Trainer::Impl::validate(TrainResult& result, bool& stop) {
  const auto start = std::chrono::steady_clock::now();
  const ValidationResult v = validator->run(model, device);
  const double value = ValidationResult::metric(v, config.valid.metric);
  // A non-finite value is never the best; the best stays NaN until a finite value comes.
  const bool has_best = state.validations > 0 && std::isfinite(state.best_metric);
  const bool better = std::isfinite(value) &&
                      (!has_best || ValidationResult::better(value, state.best_metric, config.valid.metric));
  if (!std::isfinite(value)) log().warn("validation at step {}: {} is {}, not a number to compare", state.step,
                                        to_string(config.valid.metric), value);
  ++state.validations;
  if (better) {
    state.best_metric = value;
    state.bad_validations = 0;
  } else {
    if (!has_best) state.best_metric = std::nan("");
    ++state.bad_validations;
  }
  schedule->on_validation(better);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  log().info("validation at step {}: loss {:.4f} | ppl {:.2f} | {} | {}{:.0f} s", state.step, v.loss, v.perplexity,
               v.bleu_text, better ? "new best | " : "", seconds);
  for (std::size_t i = 0; i < v.hypotheses.size(); ++i) {
    log().info("  example {}: source     {}", i + 1, v.sources[i]);
    log().info("  example {}: reference  {}", i + 1, v.references[i]);
    log().info("  example {}: hypothesis {}", i + 1, v.hypotheses[i]);
  }
  metrics->write(nlohmann::json{{"event", "valid"}, {"step", state.step}, {"epoch", state.position.epoch + 1},
                                {"loss", v.loss}, {"ppl", v.perplexity}, {"bleu", v.bleu}, {"best", better},
                                {"seconds", seconds}}
                     .dump());
  result.best_metric = state.best_metric;
  save(better);
  if (config.valid.patience > 0 && state.bad_validations >= config.valid.patience) {
    result.stop_reason = "early stopping";
    stop = true;
  }
}

TrainResult Trainer::Impl::loop() {
  SignalGuard signals;
  TrainResult result;
  const auto clock_start = std::chrono::steady_clock::now();
  const double elapsed_before = state.elapsed_seconds;
  const std::int64_t first_step = state.step;
  const auto elapsed = [&] {
    return elapsed_before + std::chrono::duration<double>(std::chrono::steady_clock::now() - clock_start).count();
  };
  double loss_sum = 0, nll_sum = 0, norm_sum = 0, interval_start = elapsed();
  std::int64_t tokens = 0, steps_in_interval = 0, bad_in_a_row = 0;
  bool stop = false;
  while (!stop) {
    if (epochs_done()) {
      result.stop_reason = "max epochs";
      break;
    }
    if (config.train.max_steps > 0 && state.step >= config.train.max_steps) {  // e.g. resumed at the limit
      result.stop_reason = "max steps";
      break;
    }
    bool finite = true;
    const double norm = train_step(loss_sum, nll_sum, tokens, finite);
    if (!finite) {
      ++state.skipped_batches;
      log().warn("step {}: non-finite loss or gradient norm ({}); batch skipped", state.step + 1, norm);
      if (++bad_in_a_row >= config.train.max_bad_batches) {
        throw Error(fmt::format("training stopped: {} batches in a row had a non-finite loss or gradient at step {};"
                                " lower optim.lr or train.clip-norm, or check the data",
                                bad_in_a_row, state.step + 1));
      }
      continue;
    }
    bad_in_a_row = 0;
    norm_sum += norm;
    ++steps_in_interval;
    const double now = elapsed();
    if (state.step % config.train.log_every == 0) {
      const double seconds = now - interval_start;
      const double ppl = std::exp(nll_sum / static_cast<double>(tokens));
      double eta = -1;
      if (config.train.max_steps > 0) {
        eta = (now - elapsed_before) / static_cast<double>(state.step - first_step) *
              static_cast<double>(config.train.max_steps - state.step);
      }
      if (config.train.max_minutes > 0) {
        const double left = config.train.max_minutes * 60 - now;
        eta = eta < 0 ? left : std::min(eta, left);
      }
      log().info("step {:>7} | epoch {:>3} | loss {:.4f} | ppl {:8.2f} | lr {:.2e} | grad norm {:6.2f} | {:6.0f} tok/s"
                   " | {} elapsed | eta {}",
                   state.step, state.position.epoch + 1, loss_sum / static_cast<double>(tokens), ppl,
                   schedule->rate(state.step), norm_sum / static_cast<double>(steps_in_interval),
                   static_cast<double>(tokens) / seconds, format_duration(now), eta < 0 ? "-" : format_duration(eta));
      metrics->write(nlohmann::json{{"event", "train"}, {"step", state.step}, {"epoch", state.position.epoch + 1},
                                    {"loss", loss_sum / static_cast<double>(tokens)}, {"ppl", ppl},
                                    {"lr", schedule->rate(state.step)},
                                    {"grad_norm", norm_sum / static_cast<double>(steps_in_interval)},
                                    {"tokens_per_s", static_cast<double>(tokens) / seconds}, {"elapsed_s", now}}
                         .dump());
      loss_sum = nll_sum = norm_sum = 0;
      tokens = steps_in_interval = 0;
      interval_start = now;
    }
    state.elapsed_seconds = now;
    const bool at_max_steps = config.train.max_steps > 0 && state.step >= config.train.max_steps;
    const bool at_max_time = config.train.max_minutes > 0 && now >= config.train.max_minutes * 60;
    if (g_signal.load() != 0) {
      result.signal = g_signal.load();
      result.stop_reason = "signal";
      save(false);
      log().warn("stopped by {} at step {}: saved {}; continue with --resume", result.signal == SIGINT ? "SIGINT" : "SIGTERM",
                   state.step, last_checkpoint);
      break;
    }
    if (config.valid.every > 0 && state.step % config.valid.every == 0) {
      validate(result, stop);
    } else if (config.checkpoint.every > 0 && state.step % config.checkpoint.every == 0) {
      save(false);
    }
    if (!stop && (at_max_steps || at_max_time)) {
      result.stop_reason = at_max_steps ? "max steps" : "max minutes";
      stop = true;
    }
  }
  if (result.stop_reason != "signal" && result.stop_reason != "early stopping") {
    // Finish with a validation (and its checkpoint) unless one just ran at this step.
    if (config.valid.every == 0 || state.step % config.valid.every != 0) {
      bool unused = false;
      validate(result, unused);
    }
  }
  result.steps = state.step;
  result.best_metric = state.best_metric;
  result.skipped_batches = state.skipped_batches;
  result.last_checkpoint = last_checkpoint;
  return result;
}

Trainer::Trainer(TrainConfig config, std::string config_text) : impl_(std::make_unique<Impl>()) {
  impl_->config = std::move(config);
  impl_->config_text = std::move(config_text);
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

TrainResult Trainer::Impl::run() {
  setup();
  load_tokenizers();
  load_data();
  build_model();
  if (config.resume) {
    resume();
  } else {
    start_epoch(0);
  }
  TrainResult result = loop();
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  log().info("training ended ({}) at step {}; best {} {:.4f}; last checkpoint {}; peak memory {:.0f} MiB",
             result.stop_reason, result.steps, to_string(config.valid.metric), result.best_metric,
             result.last_checkpoint, static_cast<double>(usage.ru_maxrss) / 1024.0);
  return result;
}

}  // namespace nmt
