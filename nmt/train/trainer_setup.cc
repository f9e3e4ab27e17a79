// A run's start-up: the run directory, threads and seed, the data and the model, init-from's
// parameters, the first epoch's plan.
#include "nmt/train/trainer_impl.h"

#include <ATen/Parallel.h>

#include "nmt/core/blas_threads.h"
#include "nmt/core/error.h"
#include "nmt/core/exit_on_signal.h"
#include "nmt/core/file_io.h"
#include "nmt/core/log.h"
#include "nmt/train/initial_checkpoint.h"
#include "nmt/train/metrics_log.h"
#include "nmt/train/optimizer.h"
#include "nmt/train/training_data.h"

namespace nmt {

// A start-up phase on every rank (TrainingGroup::phase); a signal during it ends the process at
// once with a line that names it (nothing is saved before the first step: ExitOnSignal).
void Trainer::Impl::phase(const std::string& what, const std::function<void()>& work) {
  ExitOnSignal::now(what, nothing_saved());
  group->phase(what, work);
}

void Trainer::Impl::setup() {
  config.validate();
  check_data_files(config, lead());  // before the run directory: a mistyped path leaves nothing behind
  std::unique_ptr<MetricsLog> metrics;
  if (lead()) {  // the other ranks of a group leave the run directory to rank 0
    run_dir = std::make_unique<RunDirectory>(config.run_dir, config.resume);
    log_file = std::make_unique<ScopedLogFile>(layout().log().string());
    if (run_dir->stale_temporaries() > 0) {
      log().info("removed {} temporary file(s) left by an interrupted run", run_dir->stale_temporaries());
    }
    write_file_atomic(layout().config().string(), config_text);
    metrics = std::make_unique<MetricsLog>(layout().metrics().string());
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

// init-from, on rank 0 (the parameters then go to the other ranks): a new run starts from the
// checkpoint's parameters; a resumed one from its own checkpoint, later.
void Trainer::Impl::start_from_initial_checkpoint() {
  if (!initial) return;
  const ModelConfig theirs = fine_tuning_model(initial->model->config(), model->config().dropout);
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

}  // namespace nmt
