#include "nmt/train/train_config.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <type_traits>

#include "nmt/core/decimal_number.h"
#include "nmt/core/error.h"
#include "nmt/core/sha256.h"
#include "nmt/core/thread_count.h"
#include "nmt/core/toml_writer.h"

namespace nmt {
namespace {

// An option's value as TOML, in one canonical form (toml_writer.h).
struct TomlValue {
  std::string operator()(const std::string& v) const { return toml_string(v); }
  std::string operator()(bool v) const { return v ? "true" : "false"; }
  std::string operator()(double v) const { return toml_float(v); }
  std::string operator()(const plot::ImageFormatChoice& v) const { return toml_string(v.text()); }
  template <class T>
  std::string operator()(const T& v) const {
    if constexpr (std::is_enum_v<T>) {
      return toml_string(name_of(v));
    } else {
      static_assert(std::is_integral_v<T>, "an option type without a TOML form");
      return std::to_string(v);
    }
  }
};

// A value in a message as it would be written: 0.9, 1e-08, 300, 1e+38 (std::to_string prints
// 0.000000 and 38-digit integers).
std::string str(double v) { return toml_float(v); }

}  // namespace

const EnumNames<OptimizerType>& enum_names(OptimizerType) {
  static const EnumNames<OptimizerType> names("optimizer", {{OptimizerType::adam, "adam"}, {OptimizerType::adamw, "adamw"}});
  return names;
}

const EnumNames<ValidationMetric>& enum_names(ValidationMetric) {
  static const EnumNames<ValidationMetric> names("validation metric",
                                                 {{ValidationMetric::bleu, "bleu"}, {ValidationMetric::loss, "loss"}});
  return names;
}

void TrainConfig::validate() const {
  // Paths and names hold no control characters: a NUL would end a path early, a newline split the
  // log, and config.toml must read back (nmt/core/toml_reader.cc refuses NUL).
  for_each_option(*this, [](const OptionDoc& doc, const auto& field) {
    if constexpr (std::is_same_v<std::decay_t<decltype(field)>, std::string>) {
      const auto bad = std::find_if(field.begin(), field.end(), is_control_character);
      if (bad != field.end()) {
        throw ConfigError(std::string(doc.key) + ": control character " +
                          std::to_string(static_cast<unsigned char>(*bad)) + " in " + quoted_excerpt(field) +
                          ": paths and names cannot hold one");
      }
    }
  });
  require_option(!run_dir.empty(), "run-dir", "set", "''");
  check_thread_count(threads, "threads");
  if (blas_threads != 0) check_thread_count(blas_threads, "blas-threads");
  if (data.corpora.empty()) {
    require_option(!data.train_source.empty(), "data.train-source", "set (or data.corpus)", "''");
    require_option(!data.train_target.empty(), "data.train-target", "set (or data.corpus)", "''");
    if (!data.default_tag.empty()) {
      throw ConfigError("data.default-tag: " + quoted_excerpt(data.default_tag) +
                        " names a tag, but there are none: tags belong to data.corpus tables");
    }
  } else {
    if (!data.train_source.empty() || !data.train_target.empty()) {
      throw ConfigError("data.corpus and data.train-source/-target are both set: give the training data one way");
    }
    validate_corpora(data.corpora, data.target_spm.empty(), data.default_tag);
  }
  require_option(!data.dev_source.empty(), "data.dev-source", "set", "''");
  require_option(!data.dev_target.empty(), "data.dev-target", "set", "''");
  // With init-from the subword models are the checkpoint's.
  if (init_from.empty()) require_option(!data.source_spm.empty(), "data.source-spm", "set (or init-from)", "''");
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
  require_option(train.word_dropout >= 0 && train.word_dropout < 1, "train.word-dropout", "in [0, 1) (0: off)",
                 str(train.word_dropout));
  require_option(train.ema_decay >= 0 && train.ema_decay < 1, "train.ema-decay", "in [0, 1) (0: off)",
                 str(train.ema_decay));
  require_option(train.log_every >= 1, "train.log-every", ">= 1", std::to_string(train.log_every));
  require_option(train.max_bad_batches >= 1, "train.max-bad-batches", ">= 1", std::to_string(train.max_bad_batches));
  require_option(valid.every >= 0, "valid.every", ">= 0", std::to_string(valid.every));
  require_option(valid.max_sentences >= 0, "valid.max-sentences", ">= 0 (0: all)", std::to_string(valid.max_sentences));
  require_option(valid.beam >= 1 && valid.beam <= 1000, "valid.beam", "in [1, 1000]", std::to_string(valid.beam));
  require_option(valid.examples >= 0, "valid.examples", ">= 0", std::to_string(valid.examples));
  require_option(valid.patience >= 0, "valid.patience", ">= 0 (0: no early stopping)", std::to_string(valid.patience));
  require_option(valid.max_length_a >= 0, "valid.max-length-a", ">= 0", str(valid.max_length_a));
  require_option(valid.max_length_b >= 0, "valid.max-length-b", ">= 0", std::to_string(valid.max_length_b));
  require_option(checkpoint.every >= 0, "checkpoint.every", ">= 0", std::to_string(checkpoint.every));
  require_option(checkpoint.keep_best >= 0, "checkpoint.keep-best", ">= 0", std::to_string(checkpoint.keep_best));
  require_option(checkpoint.keep_last >= 1, "checkpoint.keep-last", ">= 1", std::to_string(checkpoint.keep_last));
  schedule.validate();
  dist.validate();
  ModelConfig sized = model;  // vocabulary sizes are filled in later; check the rest now
  sized.source_vocab_size = sized.target_vocab_size = data.vocab_size;
  sized.validate();
}

namespace {

// The empty value of an option written only when set: "" or 0.
template <typename T>
bool is_empty_value(const T& value) {
  if constexpr (std::is_arithmetic_v<T>) {
    return value == T{};
  } else if constexpr (std::is_same_v<T, std::string>) {
    return value.empty();
  } else {
    return false;
  }
}

}  // namespace

std::string to_toml(const TrainConfig& config) {
  TomlWriter writer;
  for_each_option(config, [&](const OptionDoc& doc, const auto& field) {
    if constexpr (std::is_same_v<std::decay_t<decltype(field)>, CorpusList>) {
      for (const CorpusOptions& corpus : field.corpora) writer.add_table(doc.key, corpus_table_entries(corpus));
    } else if (doc.written_only_when_set && is_empty_value(field)) {
      // Like data.corpus: a one-corpus run's configuration (and with it every checkpoint) stays
      // byte for byte what it was before several corpora and word dropout.
    } else {
      writer.add(doc.key, TomlValue{}(field));
    }
  });
  return writer.text();
}

std::vector<std::pair<std::string, std::uint64_t>> shared_setup_digests(const TrainConfig& config) {
  // Where and how a rank runs, and paths that may differ between machines: the training data's
  // content is compared apart, rank 0 sends the subword models and alone reads the dev set.
  // init-from: a path that may differ between machines (every rank reads the architecture from its
  // own copy, compared as [model]; rank 0's parameters and subword models reach the others).
  static const std::set<std::string> per_rank = {"run-dir",  "init-from",   "threads",          "blas-threads",
                                                 "data.train-source", "data.train-target", "data.dev-source",
                                                 "data.dev-target", "data.source-spm",   "data.target-spm"};
  TomlWriter shared;
  if (config.resume) shared.add("resume", "true");
  for_each_option(config, [&](const OptionDoc& doc, const auto& field) {
    const std::string key = doc.key;
    if (key.rfind("dist.", 0) == 0 || per_rank.count(key) > 0) return;
    if constexpr (std::is_same_v<std::decay_t<decltype(field)>, CorpusList>) {
      // The files' paths may differ between machines (their content is compared apart).
      for (const CorpusOptions& corpus : field.corpora) shared.add_table(key, corpus_table_entries(corpus, false));
    } else {
      shared.add(key, TomlValue{}(field));
    }
  });
  std::vector<std::pair<std::string, std::uint64_t>> digests;
  for (const auto& [section, text] : shared.section_texts()) {
    digests.emplace_back(section, std::stoull(sha256_hex(text).substr(0, 15), nullptr, 16));  // 60 bits
  }
  return digests;
}

}  // namespace nmt
