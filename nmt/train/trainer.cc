#include "nmt/train/trainer.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/autocast_mode.h>
#include <nlohmann/json.hpp>
#include <torch/types.h>  // clip_grad.h needs it first
#include <torch/nn/utils/clip_grad.h>
#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "nmt/core/blas_threads.h"
#include "nmt/core/device.h"
#include "nmt/core/error.h"
#include "nmt/core/log.h"
#include "nmt/core/file_io.h"
#include "nmt/core/lock_file.h"
#include "nmt/core/thread_count.h"
#include "nmt/core/logging.h"
#include "nmt/core/sha256.h"
#include "nmt/core/verified_archive.h"
#include "nmt/data/batch.h"
#include "nmt/data/batching.h"
#include "nmt/data/epoch_batches.h"
#include "nmt/data/parallel_corpus.h"
#include "nmt/data/text_file.h"
#include "nmt/dist/communicator.h"
#include "nmt/dist/gradient_sync.h"
#include "nmt/model/checkpoint.h"
#include "nmt/train/loss.h"
#include "nmt/train/metrics_log.h"
#include "nmt/train/training_state.h"
#include "nmt/plot/attention_heatmap.h"
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

// The options every rank of a group must share: all but where and how a rank runs (run-dir,
// threads, blas-threads, the [dist] section) and the data files' paths, which may differ between
// machines: the training data's content is compared apart, rank 0 sends the subword models and
// alone reads the dev set.
std::string comparable_config(const std::string& config_text) {
  static const std::set<std::string> top_level = {"run-dir", "threads", "blas-threads"};
  static const std::set<std::string> data_paths = {"train-source", "train-target", "dev-source",
                                                   "dev-target",   "source-spm",   "target-spm"};
  std::istringstream in(config_text);
  std::string line, section, kept;
  while (std::getline(in, line)) {
    if (!line.empty() && line.front() == '[') section = line.substr(1, line.find(']') - 1);
    const std::string key = line.substr(0, line.find(" ="));
    if (section == "dist" || (section.empty() && top_level.count(key) > 0) ||
        (section == "data" && data_paths.count(key) > 0)) {
      continue;
    }
    kept += line + "\n";
  }
  return kept;
}

std::int64_t digest64(const std::string& text) {
  const std::string hex = sha256_hex(text).substr(0, 15);  // 60 bits: positive as an int64
  return static_cast<std::int64_t>(std::stoull(hex, nullptr, 16));
}

// The dropout generator's seed of rank r > 0 (rank 0 keeps the run's seed, as one process would).
std::uint64_t rank_seed(std::uint64_t seed, int rank) {
  return seed ^ (0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(rank));
}

at::Tensor cpu_generator_state() {
  at::Generator generator = at::globalContext().defaultGenerator(c10::Device(c10::kCPU));
  std::lock_guard<std::mutex> lock(generator.mutex());
  return generator.get_state();
}

void set_cpu_generator_state(const at::Tensor& state) {
  at::Generator generator = at::globalContext().defaultGenerator(c10::Device(c10::kCPU));
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_state(state);
}

// What one optimizer step tells the loop; equal on every rank of a group.
struct StepOutcome {
  double norm = 0;       // gradient norm before clipping
  bool finite = true;    // loss and norm finite: the step was taken
  int signal = 0;        // SIGINT or SIGTERM seen by any rank, else 0
  double elapsed = 0;    // rank 0's training seconds so far
  double loss = 0, nll = 0;     // summed over the step's target tokens (every rank's)
  std::int64_t tokens = 0;      // the step's target tokens
};

// Sums over the steps since the last progress line.
struct ProgressInterval {
  double loss = 0, nll = 0, norm = 0;
  std::int64_t tokens = 0, steps = 0;
  double start = 0;  // training seconds when it began

  void add(const StepOutcome& step) {
    loss += step.loss;
    nll += step.nll;
    norm += step.norm;
    tokens += step.tokens;
    ++steps;
  }
  void restart(double now) { *this = ProgressInterval{0, 0, 0, 0, 0, now}; }
};

}  // namespace

struct Trainer::Impl {
  TrainConfig config;
  std::string config_text;
  c10::Device device{c10::kCPU};
  std::unique_ptr<Tokenizer> source_tokenizer, target_tokenizer;
  std::unique_ptr<ParallelCorpus> corpus;            // best segmentation, filtered
  std::vector<std::string> source_texts, target_texts;  // kept pairs' text, for subword sampling
  std::unique_ptr<Validator> validator;
  Seq2Seq model{nullptr};
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  std::unique_ptr<LrSchedule> schedule;
  std::unique_ptr<MetricsLog> metrics;
  std::unique_ptr<ScopedLogFile> log_file;
  BatchingOptions batching;
  TrainingState state;
  std::unique_ptr<EpochBatches> batches;  // the shared plan of every epoch; state.position mirrors it
  std::string last_checkpoint;
  std::unique_ptr<LockFile> run_lock;
  std::vector<std::int64_t> own_steps;  // step checkpoints this run wrote, oldest first (keep-last removes them)
  RankInfo place;                          // this process in its group (one process: rank 0 of 1)
  std::unique_ptr<Communicator> comm;      // null for one process
  std::unique_ptr<GradientSync> gradient_sync;
  std::chrono::steady_clock::time_point clock_start;
  double elapsed_before = 0;
  double sync_seconds = 0;                 // since the last progress line: summing over ranks, waits included

  bool lead() const { return place.rank == 0; }  // rank 0 validates and writes the run directory
  double elapsed() const {
    return elapsed_before + std::chrono::duration<double>(std::chrono::steady_clock::now() - clock_start).count();
  }
  void join_group();
  void phase(const std::string& what, const std::function<void()>& work);
  void share_tokenizers();
  void check_same_setup();

  fs::path run_dir() const { return config.run_dir; }
  fs::path checkpoint_dir() const { return run_dir() / "checkpoints"; }

  void setup();
  void set_up_run_directory();
  void check_run_directory() const;
  std::string latest_stem() const;
  void load_tokenizers();
  void load_data();
  void build_model();
  void resume();
  /// The corpus of an epoch with subword sampling: the kept pairs segmented anew (null without).
  std::unique_ptr<ParallelCorpus> sampled_corpus(std::int64_t epoch) const;
  /// The epochs' batches, from epoch 0 or from `start`.
  void plan_batches(const BatchPosition* start = nullptr);
  void restore_batches(const std::string& checkpoint_path);
  void restore_rank_generators();
  StepOutcome train_step();
  void validate(TrainResult& result, bool& stop);
  void write_attention_maps(const ValidationResult& v);
  void save(bool with_best_copy);
  TrainResult loop();
  // The loop's named steps.
  std::string limit_reached_before_step() const;
  void count_skipped_step(const StepOutcome& step, std::int64_t& bad_in_a_row);
  void log_progress(const ProgressInterval& interval, double now, std::int64_t first_step);
  bool end_of_step(const StepOutcome& step, TrainResult& result);
  void finish(TrainResult& result);
  TrainResult run();
};

// Connects to the group before anything else: every later failure can then be told to the others.
void Trainer::Impl::join_group() {
  set_log_tag("rank " + std::to_string(place.rank));
  if (!lead() && log_level() < LogLevel::warn) set_log_level(LogLevel::warn);  // rank 0 reports
  c10::Device wanted = parse_device(config.device);
  log().info("joining a group of {} ranks ({}) at {}:{}", place.world_size, place.source, place.master_addr,
             place.master_port);
  comm = Communicator::connect(place, config.dist.backend, wanted, config.dist.timeout_s);
  log().info("group of {} ranks joined, backend {}", place.world_size, comm->backend_name());
}

// Runs one start-up phase on every rank and lets all of them know whether any failed, so that a
// rank never waits for a collective that a failed rank will not join. The failed rank rethrows
// its own error; the others stop with one naming it.
void Trainer::Impl::phase(const std::string& what, const std::function<void()>& work) {
  std::exception_ptr error;
  try {
    work();
  } catch (...) {
    error = std::current_exception();
  }
  if (comm) {
    const at::Tensor failed = comm->all_gather(at::tensor({error ? 1L : 0L}, at::kLong), what);
    if (!error) {
      for (int r = 0; r < place.world_size; ++r) {
        if (failed[r].item<std::int64_t>() != 0) {
          throw DistError("rank " + std::to_string(r) + " failed while " + what + " (its error says why); stopping");
        }
      }
    }
  }
  if (error) std::rethrow_exception(error);
}

void Trainer::Impl::setup() {
  config.validate();
  if (lead()) set_up_run_directory();  // the other ranks of a group leave it to rank 0
  device = parse_device(config.device);
  if (place.distributed() && device.is_cuda() && config.device.find(':') == std::string::npos &&
      torch::cuda::device_count() > 0) {
    device = c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(place.local_rank % torch::cuda::device_count()));
  }
  if (config.train.amp && !device.is_cuda()) throw ConfigError("train.amp needs a CUDA device, got " + device.str());
  at::set_num_threads(config.threads);
  // Explicitly, whatever the environment says: OpenBLAS's spinning threads take the core another
  // rank (or process) needs (docs/distributed.md, "Threads").
  const int blas = config.blas_threads > 0 ? config.blas_threads : config.threads;
  const bool blas_set = set_blas_threads(blas);
  at::manual_seed(config.seed);
  if (!lead()) return;
  log().info("nmt-train: run directory {}, device {}, {} CPU thread(s), {} BLAS thread(s){}", run_dir().string(),
             device.str(), config.threads, blas_set ? std::to_string(blas) : "?",
             place.distributed() ? fmt::format(", rank 0 of {}", place.world_size) : "");
  log().info("effective configuration:\n{}", config_text);
}

// Rank 0's (or the one process's) claim on the run directory, before anything there is read.
void Trainer::Impl::set_up_run_directory() {
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
}

// A run directory holds one run. Without `latest`, step files or a best.pt belong to some other
// run (or one whose `latest` was removed): a new run would overwrite them and keep-last would
// delete them, so refuse and say what to do.
void Trainer::Impl::check_run_directory() const {
  if (config.resume) return;  // resume() reads `latest`
  if (fs::exists(checkpoint_dir() / "latest")) {
    throw ConfigError("run directory " + run_dir().string() +
                      " already holds a training run: resume it, or choose another run directory");
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

// Rank 0 loads (or trains) the subword models; the others take the same bytes from it, so no
// machine needs the files, and no two ranks can segment differently.
void Trainer::Impl::share_tokenizers() {
  if (!comm) return;
  const bool joint = config.data.target_spm.empty();
  const std::string source = comm->broadcast_bytes(lead() ? source_tokenizer->model_bytes() : "", 0,
                                                   "sending the subword models");
  const std::string target = joint ? source : comm->broadcast_bytes(lead() ? target_tokenizer->model_bytes() : "", 0,
                                                                    "sending the subword models");
  if (lead()) return;
  source_tokenizer = std::make_unique<Tokenizer>(Tokenizer::from_bytes(source, config.data.source_spm + " (from rank 0)"));
  target_tokenizer = std::make_unique<Tokenizer>(
      joint ? *source_tokenizer : Tokenizer::from_bytes(target, config.data.target_spm + " (from rank 0)"));
}

// Ranks that disagree on options or data would train different models while all-reducing their
// gradients: compare digests once, before the first step.
void Trainer::Impl::check_same_setup() {
  if (!comm) return;
  const std::int64_t config_digest =
      digest64(comparable_config(config_text) + (config.resume ? "resume = true\n" : "resume = false\n"));
  const auto data_digest = static_cast<std::int64_t>(corpus->fingerprint() & 0x7FFFFFFFFFFFFFFFull);
  const at::Tensor all = comm->all_gather(at::tensor({config_digest, data_digest, static_cast<std::int64_t>(corpus->size())},
                                                     at::kLong),
                                          "comparing options and data");
  for (int r = 1; r < place.world_size; ++r) {
    if (all[r][0].item<std::int64_t>() != all[0][0].item<std::int64_t>()) {
      throw ConfigError("rank " + std::to_string(r) + "'s options differ from rank 0's: every option but run-dir, " +
                        "threads, blas-threads, [dist] and the data paths must be the same on every rank");
    }
    if (all[r][1].item<std::int64_t>() != all[0][1].item<std::int64_t>()) {
      throw ConfigError("rank " + std::to_string(r) + "'s training data differ from rank 0's (" +
                        std::to_string(all[r][2].item<std::int64_t>()) + " vs " +
                        std::to_string(all[0][2].item<std::int64_t>()) + " pairs after filtering, and other subwords): " +
                        "data.train-source and data.train-target must be the same files on every machine");
    }
  }
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
  if (!lead()) return;  // rank 0 validates
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
  if (comm) gradient_sync = std::make_unique<GradientSync>(model->parameters());
}

// Rank 0 reads the checkpoint and its training state and sends their bytes to the other ranks:
// every rank restores the same parameters, optimizer moments and data position, and its own
// dropout generator (a run resumed with another number of ranks continues, with a warning).
void Trainer::Impl::resume() {
  std::string stem, checkpoint_bytes, state_bytes;
  phase("reading the checkpoint to resume from", [&] {
    if (!lead()) return;
    if (!fs::exists(checkpoint_dir() / "latest")) {
      throw ConfigError("cannot resume: no checkpoint in " + checkpoint_dir().string() + " (start without resuming)");
    }
    stem = latest_stem();
    checkpoint_bytes = read_archive_file((checkpoint_dir() / (stem + ".pt")).string(), "checkpoint");
    state_bytes = read_archive_file((checkpoint_dir() / (stem + ".state")).string(), "training state");
  });
  if (comm) {
    stem = comm->broadcast_bytes(stem, 0, "sending the checkpoint");
    checkpoint_bytes = comm->broadcast_bytes(checkpoint_bytes, 0, "sending the checkpoint");
    state_bytes = comm->broadcast_bytes(state_bytes, 0, "sending the training state");
  }
  const std::string checkpoint_path = (checkpoint_dir() / (stem + ".pt")).string();
  phase("resuming from " + checkpoint_path, [&] {
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
    {
      torch::NoGradGuard no_grad;
      auto loaded = checkpoint.model->named_parameters();
      for (auto& p : model->named_parameters()) p.value().copy_(loaded[p.key()]);
    }
    state = load_training_state_from_bytes(state_bytes, (checkpoint_dir() / (stem + ".state")).string(), *optimizer);
    schedule->restore_state(state.schedule_json);
    restore_batches(checkpoint_path);
    // load_training_state restored rank 0's generator; every other rank takes its own.
    const auto saved_ranks = static_cast<int>(state.world_size);
    if (place.rank > 0) restore_rank_generators();
    if (saved_ranks != place.world_size && lead()) {
      log().warn("{} was written by a run of {} rank(s) and continues with {}: a step now takes {} x {} batches "
                 "(was {} x {}) and dropout differs from an uninterrupted run",
                 checkpoint_path, saved_ranks, place.world_size, place.world_size, config.train.accumulate, saved_ranks,
                 config.train.accumulate);
    }
  });
  last_checkpoint = checkpoint_path;
  if (!lead()) return;
  // The run's earlier checkpoints are its own: keep-last may remove them. Step files above the
  // resumed step (written after `latest` was last set, by a process that then died) are left alone.
  for (const auto& [step, name] : step_files(checkpoint_dir())) {
    if (step <= state.step && (own_steps.empty() || own_steps.back() != step)) own_steps.push_back(step);
  }
  log().info("resumed from {} at step {}, epoch {}, batch {}", checkpoint_path, state.step, state.position.epoch + 1,
               state.position.batch);
}

// The data position of the training state: that epoch's corpus and plan, the batch within it.
void Trainer::Impl::restore_batches(const std::string& checkpoint_path) {
  const BatchPosition saved = state.position;
  try {
    plan_batches(&saved);  // makes the saved epoch's (possibly sampled) corpus and plan
  } catch (const DataError& e) {
    throw ConfigError("cannot resume from " + checkpoint_path +
                      ": the training data, subword sampling or batching options changed since it was written (" +
                      e.what() + ")");
  }
}

// A rank above 0 continues its own dropout stream: the generator state rank 0 gathered for it, or
// a fresh seed when the run had fewer ranks.
void Trainer::Impl::restore_rank_generators() {
  const auto index = static_cast<std::size_t>(place.rank - 1);
  if (index < state.rank_generator_states.size()) {
    set_cpu_generator_state(state.rank_generator_states[index]);
  } else {
    at::manual_seed(rank_seed(config.seed ^ static_cast<std::uint64_t>(state.step), place.rank));
  }
  // The training state holds rank 0's CUDA generators only (gathering CUDA states is not yet
  // done): another rank on CUDA draws afresh rather than replay rank 0's stream.
  if (device.is_cuda()) {
    at::Generator cuda = at::globalContext().defaultGenerator(device);
    std::lock_guard<std::mutex> lock(cuda.mutex());
    cuda.set_current_seed(rank_seed(config.seed ^ static_cast<std::uint64_t>(state.step), place.rank));
  }
}

std::unique_ptr<ParallelCorpus> Trainer::Impl::sampled_corpus(std::int64_t epoch) const {
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
  return std::make_unique<ParallelCorpus>(ParallelCorpus::from_sequences(sources, targets));
}

void Trainer::Impl::plan_batches(const BatchPosition* start) {
  EpochBatches::CorpusForEpoch corpus_for_epoch;
  if (config.train.sampling_alpha > 0) corpus_for_epoch = [this](std::int64_t epoch) { return sampled_corpus(epoch); };
  batches = start ? std::make_unique<EpochBatches>(*corpus, batching, config.train.max_epochs,
                                                   std::move(corpus_for_epoch), *start)
                  : std::make_unique<EpochBatches>(*corpus, batching, config.train.max_epochs,
                                                   std::move(corpus_for_epoch));
  state.position = batches->position();
}

// One optimizer step over world_size x train.accumulate consecutive batches of the epoch plan:
// every rank walks the same plan and computes the batches at positions rank, rank + world_size,
// ... of the step; gradients are summed over the ranks. The loss is normalised by the step's
// target tokens on all ranks, so W ranks take exactly the step of one process accumulating all
// W x accumulate batches, up to the order of float sums (docs/distributed.md, "Semantics").
StepOutcome Trainer::Impl::train_step() {
  const int world = place.world_size;
  const StepShare share = batches->take_step(config.train.accumulate * world, world, place.rank);
  state.position = batches->position();
  const std::int64_t step_tokens = share.target_tokens;
  optimizer->zero_grad();
  double step_loss = 0, step_nll = 0;
  for (const Batch& cpu_batch : share.batches) {
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
  StepOutcome outcome;
  outcome.signal = g_signal.load();
  outcome.elapsed = elapsed();
  const double max_norm = config.train.clip_norm > 0 ? config.train.clip_norm : INFINITY;
  if (!comm) {
    outcome.norm = torch::nn::utils::clip_grad_norm_(model->parameters(), max_norm);
  } else {
    const auto sync_start = std::chrono::steady_clock::now();
    gradient_sync->all_reduce(*comm);
    // One small sum carries what the ranks must agree on: the loss, whether any rank was asked to
    // stop, and rank 0's clock (train.max-minutes) and gradient norm. Ranks with other thread
    // counts or CPUs could sum the norm in another order; one clip factor keeps them identical.
    const double norm = torch::nn::utils::clip_grad_norm_(model->parameters(), INFINITY);  // measures only
    const int signal = outcome.signal;
    at::Tensor shared = at::tensor({step_loss, step_nll, lead() ? outcome.elapsed : 0.0, signal == SIGINT ? 1.0 : 0.0,
                                    signal == SIGTERM ? 1.0 : 0.0, lead() ? norm : 0.0},
                                   at::kDouble);
    comm->all_reduce_sum(shared, "summing the step's loss");
    step_loss = shared[0].item<double>();
    step_nll = shared[1].item<double>();
    outcome.elapsed = shared[2].item<double>();
    outcome.signal = shared[3].item<double>() > 0 ? SIGINT : shared[4].item<double>() > 0 ? SIGTERM : 0;
    outcome.norm = shared[5].item<double>();
    sync_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - sync_start).count();
    // torch::nn::utils::clip_grad_norm_'s rule, with the group's norm.
    const double clip = max_norm / (outcome.norm + 1e-6);
    if (std::isfinite(outcome.norm) && clip < 1) {
      torch::NoGradGuard no_grad;
      for (auto& p : model->parameters()) {
        if (p.grad().defined()) p.mutable_grad().mul_(clip);
      }
    }
  }
  outcome.finite = std::isfinite(step_loss) && std::isfinite(outcome.norm);
  if (!outcome.finite) {
    optimizer->zero_grad();
    return outcome;
  }
  set_learning_rate(*optimizer, schedule->rate(state.step + 1));
  optimizer->step();
  ++state.step;
  state.target_tokens += step_tokens;
  outcome.loss = step_loss;
  outcome.nll = step_nll;
  outcome.tokens = step_tokens;
  return outcome;
}

// Every rank calls it (at the same step): rank 0 gathers the ranks' generator states and writes.
void Trainer::Impl::save(bool with_best_copy) {
  state.world_size = place.world_size;
  if (comm) {
    const at::Tensor states = comm->all_gather(cpu_generator_state(), "gathering the ranks' generator states");
    state.rank_generator_states.clear();
    for (int r = 1; r < place.world_size; ++r) state.rank_generator_states.push_back(states[r].clone());
  }
  if (!lead()) {
    last_checkpoint = (checkpoint_dir() / (step_stem(state.step) + ".pt")).string();
    return;
  }
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

// Rank 0 validates while the others wait (at most dist.timeout) for the value, from which every
// rank draws the same conclusions (best, early stopping, the plateau schedule).
void Trainer::Impl::validate(TrainResult& result, bool& stop) {
  const auto start = std::chrono::steady_clock::now();
  ValidationResult v;
  double value = 0;
  if (lead()) {
    v = validator->run(model, device);
    value = ValidationResult::metric(v, config.valid.metric);
  }
  if (comm) {
    at::Tensor shared = at::tensor({value}, at::kDouble);
    comm->broadcast({shared}, 0, "waiting for rank 0's validation at step " + std::to_string(state.step));
    value = shared.item<double>();
  }
  // A non-finite value is never the best; the best stays NaN until a finite value comes.
  const bool has_best = state.validations > 0 && std::isfinite(state.best_metric);
  const bool better = std::isfinite(value) &&
                      (!has_best || ValidationResult::better(value, state.best_metric, config.valid.metric));
  if (!std::isfinite(value) && lead()) log().warn("validation at step {}: {} is {}, not a number to compare", state.step,
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
  if (lead()) {
    log().info("validation at step {}: loss {:.4f} | ppl {:.2f} | {} | {}{:.0f} s", state.step, v.loss, v.perplexity,
               v.bleu_text, better ? "new best | " : "", seconds);
    for (std::size_t i = 0; i < v.hypotheses.size(); ++i) {
      log().info("  example {}: source     {}", i + 1, v.sources[i]);
      log().info("  example {}: reference  {}", i + 1, v.references[i]);
      log().info("  example {}: hypothesis {}", i + 1, v.hypotheses[i]);
    }
    write_attention_maps(v);
    metrics->write(nlohmann::json{{"event", "valid"}, {"step", state.step}, {"epoch", state.position.epoch + 1},
                                  {"target_tokens", state.target_tokens}, {"loss", v.loss}, {"ppl", v.perplexity},
                                  {"bleu", v.bleu}, {"best", better}, {"seconds", seconds}}
                       .dump());
  }
  result.best_metric = state.best_metric;
  save(better);
  if (config.valid.patience > 0 && state.bad_validations >= config.valid.patience) {
    result.stop_reason = "early stopping";
    stop = true;
  }
}

// Heat-maps of the examples' attention in RUN_DIR/attention/step-N/ (N as the checkpoints number
// it). A picture that cannot be written costs a warning, never the training.
void Trainer::Impl::write_attention_maps(const ValidationResult& v) {
  if (v.example_attention.empty()) return;
  char step_dir[32];
  std::snprintf(step_dir, sizeof step_dir, "step-%08lld", static_cast<long long>(state.step));
  const fs::path dir = run_dir() / "attention" / step_dir;
  try {
    plot::HeatmapOptions options;
    options.name = "step " + std::to_string(state.step) + ", example";
    plot::write_attention_heatmaps(v.example_attention, dir.string(),
                                   plot::parse_image_formats(config.valid.attention_maps, "valid.attention-maps"),
                                   options);
  } catch (const std::exception& e) {
    log().warn("validation at step {}: no attention heat-maps in {}: {}", state.step, dir.string(), e.what());
  }
}

TrainResult Trainer::Impl::loop() {
  SignalGuard signals;
  TrainResult result;
  clock_start = std::chrono::steady_clock::now();
  elapsed_before = state.elapsed_seconds;
  const std::int64_t first_step = state.step;
  ProgressInterval interval;
  interval.restart(elapsed());
  std::int64_t bad_in_a_row = 0;
  for (;;) {
    result.stop_reason = limit_reached_before_step();
    if (!result.stop_reason.empty()) break;
    const StepOutcome step = train_step();
    if (!step.finite) {
      count_skipped_step(step, bad_in_a_row);
      continue;
    }
    bad_in_a_row = 0;
    interval.add(step);
    state.elapsed_seconds = step.elapsed;
    if (state.step % config.train.log_every == 0) {
      if (lead()) log_progress(interval, step.elapsed, first_step);
      sync_seconds = 0;
      interval.restart(step.elapsed);
    }
    if (end_of_step(step, result)) break;
  }
  finish(result);
  return result;
}

// The epochs or steps allowed are used up before the next step ("" if not; a run resumed at its limit stops here).
std::string Trainer::Impl::limit_reached_before_step() const {
  if (batches->exhausted()) return "max epochs";
  if (config.train.max_steps > 0 && state.step >= config.train.max_steps) return "max steps";
  return "";
}

// A step with a non-finite loss or gradient was skipped: too many in a row stop the run.
void Trainer::Impl::count_skipped_step(const StepOutcome& step, std::int64_t& bad_in_a_row) {
  ++state.skipped_batches;
  if (lead()) log().warn("step {}: non-finite loss or gradient norm ({}); batch skipped", state.step + 1, step.norm);
  if (++bad_in_a_row >= config.train.max_bad_batches) {
    throw Error(fmt::format("training stopped: {} batches in a row had a non-finite loss or gradient at step {};"
                            " lower optim.lr or train.clip-norm, or check the data",
                            bad_in_a_row, state.step + 1));
  }
}

// The progress line and its metrics event (rank 0).
void Trainer::Impl::log_progress(const ProgressInterval& interval, double now, std::int64_t first_step) {
  const double seconds = now - interval.start, tokens = static_cast<double>(interval.tokens);
  const double loss = interval.loss / tokens, ppl = std::exp(interval.nll / tokens);
  const double norm = interval.norm / static_cast<double>(interval.steps), tokens_per_s = tokens / seconds;
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
             state.step, state.position.epoch + 1, loss, ppl, schedule->rate(state.step), norm, tokens_per_s,
             format_duration(now), eta < 0 ? "-" : format_duration(eta));
  nlohmann::json event{{"event", "train"}, {"step", state.step}, {"epoch", state.position.epoch + 1},
                       {"target_tokens", state.target_tokens}, {"loss", loss},
                       {"ppl", ppl}, {"lr", schedule->rate(state.step)},
                       {"grad_norm", norm}, {"tokens_per_s", tokens_per_s}, {"elapsed_s", now}};
  if (comm) event["sync_s"] = sync_seconds;  // rank 0's time in the gradient sum, waits for other ranks included
  metrics->write(event.dump());
}

// After a step: a signal saves and stops; validation or a checkpoint when due; the step and time
// limits. Returns whether the loop ends.
bool Trainer::Impl::end_of_step(const StepOutcome& step, TrainResult& result) {
  if (step.signal != 0) {  // any rank's: the whole group stops here, with one checkpoint
    result.signal = step.signal;
    result.stop_reason = "signal";
    save(false);
    if (lead()) {
      log().warn("stopped by {} at step {}: saved {}; resume the run to continue",
                 result.signal == SIGINT ? "SIGINT" : "SIGTERM", state.step, last_checkpoint);
    }
    return true;
  }
  bool stop = false;  // early stopping
  if (config.valid.every > 0 && state.step % config.valid.every == 0) {
    validate(result, stop);
  } else if (config.checkpoint.every > 0 && state.step % config.checkpoint.every == 0) {
    save(false);
  }
  if (stop) return true;
  const bool at_max_steps = config.train.max_steps > 0 && state.step >= config.train.max_steps;
  const bool at_max_time = config.train.max_minutes > 0 && step.elapsed >= config.train.max_minutes * 60;
  if (at_max_steps || at_max_time) {
    result.stop_reason = at_max_steps ? "max steps" : "max minutes";
    return true;
  }
  return false;
}

// Finish with a validation (and its checkpoint) unless one just ran at this step, then the result.
void Trainer::Impl::finish(TrainResult& result) {
  if (result.stop_reason != "signal" && result.stop_reason != "early stopping") {
    if (config.valid.every == 0 || state.step % config.valid.every != 0) {
      bool unused = false;
      validate(result, unused);
    }
  }
  result.steps = state.step;
  result.best_metric = state.best_metric;
  result.skipped_batches = state.skipped_batches;
  result.target_tokens = state.target_tokens;
  result.last_checkpoint = last_checkpoint;
}

Trainer::Trainer(TrainConfig config, std::string config_text, RankInfo rank) : impl_(std::make_unique<Impl>()) {
  impl_->config = std::move(config);
  impl_->config_text = std::move(config_text);
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

TrainResult Trainer::Impl::run() {
  if (place.distributed()) join_group();
  phase("starting", [&] { setup(); });
  phase("loading the subword models", [&] {
    if (lead()) load_tokenizers();
  });
  share_tokenizers();
  phase("loading the training data and building the model", [&] {
    load_data();
    build_model();
  });
  check_same_setup();
  if (comm) {  // one starting point for every rank, then each its own dropout
    torch::NoGradGuard no_grad;
    comm->broadcast(model->parameters(), 0, "sending the initial parameters");
    if (!lead()) at::manual_seed(rank_seed(config.seed, place.rank));
  }
  if (config.resume) {
    resume();
  } else {
    phase("planning the first epoch", [&] { plan_batches(); });
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
