#include "nmt/train/train_config.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "nmt/core/error.h"
#include "nmt/plot/figure.h"
#include "nmt/core/thread_count.h"

namespace nmt {
namespace {

// The shortest text that reads back as v: 0.9, 1e-08, 1e+38 (std::to_string prints 0.000000 and
// 38-digit integers).
std::string str(double v) {
  char text[32];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, v);
    if (std::strtod(text, nullptr) == v) break;
  }
  return text;
}

}  // namespace

OptimizerType parse_optimizer_type(const std::string& name) {
  if (name == "adam") return OptimizerType::adam;
  if (name == "adamw") return OptimizerType::adamw;
  throw ConfigError("unknown optimizer '" + name + "' (expected adam or adamw)");
}

std::string to_string(OptimizerType type) { return type == OptimizerType::adam ? "adam" : "adamw"; }

ValidationMetric parse_validation_metric(const std::string& name) {
  if (name == "bleu") return ValidationMetric::bleu;
  if (name == "loss") return ValidationMetric::loss;
  throw ConfigError("unknown validation metric '" + name + "' (expected bleu or loss)");
}

std::string to_string(ValidationMetric metric) { return metric == ValidationMetric::bleu ? "bleu" : "loss"; }

void TrainConfig::validate() const {
  require_option(!run_dir.empty(), "run-dir", "set", "''");
  check_thread_count(threads, "threads");
  if (blas_threads != 0) check_thread_count(blas_threads, "blas-threads");
  for (const auto& [key, value] : {std::pair{"data.train-source", data.train_source},
                                   {"data.train-target", data.train_target}, {"data.dev-source", data.dev_source},
                                   {"data.dev-target", data.dev_target}, {"data.source-spm", data.source_spm}}) {
    require_option(!value.empty(), key, "set", "''");
  }
  require_option(data.vocab_size >= 8, "data.vocab-size", ">= 8", std::to_string(data.vocab_size));
  require_option(data.max_length >= 0, "data.max-length", ">= 0 (0: no limit)", std::to_string(data.max_length));
  require_option(data.max_length_ratio == 0 || data.max_length_ratio >= 1, "data.max-length-ratio", ">= 1 (0: no limit)",
          str(data.max_length_ratio));
  require_option(optim.beta1 >= 0 && optim.beta1 < 1, "optim.beta1", "in [0, 1)", str(optim.beta1));
  require_option(optim.beta2 >= 0 && optim.beta2 < 1, "optim.beta2", "in [0, 1)", str(optim.beta2));
  // Adam's first update is lr / (1 - beta1) times about 1, and LibTorch computes it as a float.
  require_option(!(schedule.lr / (1 - optim.beta1) > 1e38), "optim.lr",
          "at most 1e38 x (1 - optim.beta1) (Adam's first step, lr / (1 - beta1), must fit in a float)",
          str(schedule.lr));
  require_option(optim.eps > 0, "optim.eps", "> 0", str(optim.eps));
  require_option(optim.weight_decay >= 0, "optim.weight-decay", ">= 0", str(optim.weight_decay));
  require_option(train.max_steps >= 0, "train.max-steps", ">= 0 (0: no limit)", std::to_string(train.max_steps));
  require_option(train.max_epochs >= 0, "train.max-epochs", ">= 0 (0: no limit)", std::to_string(train.max_epochs));
  require_option(train.max_minutes >= 0, "train.max-minutes", ">= 0 (0: no limit)", str(train.max_minutes));
  require_option(train.max_steps > 0 || train.max_epochs > 0 || train.max_minutes > 0 || valid.patience > 0,
          "train.max-steps, train.max-epochs, train.max-minutes or valid.patience", "set to end training", "none");
  require_option(train.max_tokens >= 1, "train.max-tokens", ">= 1", std::to_string(train.max_tokens));
  require_option(train.accumulate >= 1, "train.accumulate", ">= 1", std::to_string(train.accumulate));
  require_option(train.label_smoothing >= 0 && train.label_smoothing < 1, "train.label-smoothing", "in [0, 1)",
          str(train.label_smoothing));
  require_option(train.clip_norm >= 0, "train.clip-norm", ">= 0 (0: no clipping)", str(train.clip_norm));
  require_option(train.sampling_alpha >= 0 && train.sampling_alpha <= 1, "train.sampling-alpha", "in [0, 1] (0: off)",
          str(train.sampling_alpha));
  require_option(train.log_every >= 1, "train.log-every", ">= 1", std::to_string(train.log_every));
  require_option(train.max_bad_batches >= 1, "train.max-bad-batches", ">= 1", std::to_string(train.max_bad_batches));
  require_option(valid.every >= 0, "valid.every", ">= 0", std::to_string(valid.every));
  require_option(valid.max_sentences >= 0, "valid.max-sentences", ">= 0 (0: all)", std::to_string(valid.max_sentences));
  require_option(valid.examples >= 0, "valid.examples", ">= 0", std::to_string(valid.examples));
  require_option(valid.patience >= 0, "valid.patience", ">= 0 (0: no early stopping)", std::to_string(valid.patience));
  require_option(valid.max_length_a >= 0, "valid.max-length-a", ">= 0", str(valid.max_length_a));
  require_option(valid.max_length_b >= 0, "valid.max-length-b", ">= 0", std::to_string(valid.max_length_b));
  if (valid.attention_maps != "none") plot::parse_image_formats(valid.attention_maps, "valid.attention-maps");
  require_option(checkpoint.every >= 0, "checkpoint.every", ">= 0", std::to_string(checkpoint.every));
  require_option(checkpoint.keep_last >= 1, "checkpoint.keep-last", ">= 1", std::to_string(checkpoint.keep_last));
  schedule.validate();
  dist.validate();
  ModelConfig sized = model;  // vocabulary sizes are filled in later; check the rest now
  sized.source_vocab_size = sized.target_vocab_size = data.vocab_size;
  sized.validate();
}

}  // namespace nmt
