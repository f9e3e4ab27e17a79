// Everything nmt-train can be told, as plain structs. nmt-train fills them from flags and a TOML
// file (section.key = --section.key); the library never looks options up by string.
#pragma once

#include <cstdint>
#include <string>

#include "nmt/data/tokenizer_training.h"
#include "nmt/dist/dist_options.h"
#include "nmt/model/model_config.h"
#include "nmt/train/lr_schedule.h"

namespace nmt {

struct DataOptions {
  std::string train_source, train_target;  // aligned UTF-8 files, one sentence a line
  std::string dev_source, dev_target;      // validation set (loss, perplexity, BLEU)
  std::string source_spm;                  // subword model; trained on the training data if missing
  std::string target_spm;                  // empty: joint model (source_spm for both sides)
  SubwordModelType spm_type = SubwordModelType::unigram;  // when training the subword model(s)
  int vocab_size = 8000;                   // when training the subword model(s)
  int max_length = 100;                    // drop training pairs with a side longer than this (0: no limit)
  double max_length_ratio = 0;             // drop training pairs above this length ratio (0: no limit)
};

enum class OptimizerType { adam, adamw };
OptimizerType parse_optimizer_type(const std::string& name);  // throws ConfigError
std::string to_string(OptimizerType type);

struct OptimizerOptions {
  OptimizerType type = OptimizerType::adam;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  double weight_decay = 0;  // L2 penalty (adam) or decoupled decay (adamw)
};

struct TrainingOptions {
  std::int64_t max_steps = 0;       // optimizer steps; 0: no limit
  std::int64_t max_epochs = 0;      // 0: no limit
  double max_minutes = 0;           // wall-clock limit; 0: none
  std::int64_t max_tokens = 2000;   // per batch, padding included (see BatchingOptions)
  std::int64_t accumulate = 1;      // batches per optimizer step
  double label_smoothing = 0.1;
  double clip_norm = 1.0;           // clip gradients to this global norm; 0: no clipping
  double sampling_alpha = 0;        // subword sampling of training sources and targets; 0: off
  std::int64_t log_every = 100;     // steps between progress lines
  std::int64_t max_bad_batches = 10;  // stop after this many consecutive non-finite batches
  bool amp = false;                 // bfloat16 autocast on CUDA
};

enum class ValidationMetric { bleu, loss };
ValidationMetric parse_validation_metric(const std::string& name);  // throws ConfigError
std::string to_string(ValidationMetric metric);

struct ValidationOptions {
  std::int64_t every = 1000;        // steps between validations; 0: only at the end
  std::int64_t max_sentences = 0;   // translate at most this many dev sentences for BLEU; 0: all
  std::int64_t examples = 3;        // example translations to log
  ValidationMetric metric = ValidationMetric::bleu;  // for the best checkpoint, early stopping, plateau
  std::int64_t patience = 0;        // stop after this many validations without improvement; 0: never
  double max_length_a = 1.5;        // greedy translations: at most a * n + b tokens
  std::int64_t max_length_b = 10;
  /// Heat-maps of the examples' attention at each validation, in RUN_DIR/attention/step-N/: image
  /// formats ("png", "svg,png", ...), or "none". Models without attention draw none.
  std::string attention_maps = "png";
};

struct CheckpointOptions {
  std::int64_t every = 1000;  // steps between checkpoints (besides the last one and on signals)
  std::int64_t keep_last = 3; // step checkpoints kept (best.pt is kept apart)
};

struct TrainConfig {
  std::string run_dir = "runs/default";  // checkpoints, log, metrics and config go here
  std::string device = "auto";           // auto, cpu, cuda, cuda:N
  int threads = 1;                       // CPU intra-op threads (1 is fastest here: docs/benchmarks.md)
  int blas_threads = 0;                  // OpenBLAS threads per product; 0: the same as threads
  std::uint64_t seed = 1;
  bool resume = false;                   // continue from the run directory's latest checkpoint

  DataOptions data;
  ModelConfig model;                     // vocabulary sizes come from the subword models
  TrainingOptions train;
  OptimizerOptions optim;
  ScheduleOptions schedule;
  ValidationOptions valid;
  CheckpointOptions checkpoint;
  DistOptions dist;                      // data-parallel training (docs/distributed.md)

  void validate() const;  // throws ConfigError naming the option as section.key
};

}  // namespace nmt
