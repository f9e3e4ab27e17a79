#include "nmt/model/checkpoint_average.h"

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>
#include <torch/types.h>

#include <map>

#include "nmt/core/error.h"
#include "nmt/core/file_io.h"
#include "nmt/core/log.h"
#include "nmt/core/toml_reader.h"

namespace nmt {
namespace {

std::string json_text(const nlohmann::json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

// The training run a checkpoint comes from, from the configuration it carries: "RUN_DIR (seed N)",
// or "" when it does not say (a checkpoint without one, or not nmt-train's).
std::string training_run_of(const Checkpoint& checkpoint) {
  std::string run_dir, seed;
  for (const TomlEntry& entry : training_config_entries(checkpoint.training_config)) {
    if (entry.key == "run-dir") run_dir = entry.value;
    if (entry.key == "seed") seed = entry.value;
  }
  return run_dir.empty() ? "" : run_dir + " (seed " + seed + ")";
}

}  // namespace

std::string checkpoint_mismatch(const Checkpoint& a, const std::string& a_path, const Checkpoint& b,
                                const std::string& b_path, bool with_source) {
  const auto config_a = nlohmann::json::parse(a.model->config().to_json());
  const auto config_b = nlohmann::json::parse(b.model->config().to_json());
  for (const auto& [key, value] : config_a.items()) {
    if (key == "dropout") continue;
    if (!with_source && (key == "source_vocab_size" || key == "share_embeddings")) continue;
    const auto other = config_b.find(key);
    const std::string theirs = other == config_b.end() ? "(absent)" : json_text(*other);
    if (theirs != json_text(value)) {
      return "model." + key + ": " + json_text(value) + " in " + a_path + ", " + theirs + " in " + b_path;
    }
  }
  if (with_source && a.source_tokenizer.model_bytes() != b.source_tokenizer.model_bytes()) {
    return "source subword model: " + a_path + " and " + b_path + " have different ones (" +
           std::to_string(a.source_tokenizer.vocab_size()) + " and " + std::to_string(b.source_tokenizer.vocab_size()) +
           " pieces)";
  }
  if (a.target_tokenizer.model_bytes() != b.target_tokenizer.model_bytes()) {
    return "target subword model: " + a_path + " and " + b_path + " have different ones (" +
           std::to_string(a.target_tokenizer.vocab_size()) + " and " + std::to_string(b.target_tokenizer.vocab_size()) +
           " pieces)";
  }
  return "";
}

void average_checkpoints(const std::vector<std::string>& inputs, const std::string& output, bool replace) {
  if (inputs.empty()) throw ConfigError("averaging needs at least one checkpoint");
  refuse_existing_output(output, replace);
  torch::NoGradGuard no_grad;
  Checkpoint first = load_checkpoint(inputs.front());
  // float64 sums, in the order of the inputs, by parameter name.
  std::map<std::string, at::Tensor> sums;
  for (const auto& p : first.model->named_parameters()) sums[p.key()] = p.value().to(at::kDouble);
  const std::string first_run = training_run_of(first);
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    const Checkpoint next = load_checkpoint(inputs[i]);
    const std::string mismatch = checkpoint_mismatch(first, inputs.front(), next, inputs[i]);
    if (!mismatch.empty()) throw ConfigError("cannot average " + inputs[i] + " with " + inputs.front() + ": " + mismatch);
    // Separate runs start from different random weights and do not meet: the mean of two seeds of
    // the Bible recipe translates at 0.16 BLEU (docs/benchmarks.md). A fine-tuned model and its
    // parent may be worth averaging, so this warns and goes on.
    const std::string next_run = training_run_of(next);
    if (!first_run.empty() && !next_run.empty() && first_run != next_run) {
      log().warn("{} and {} appear to come from different training runs ({} and {}): separate runs do not "
                 "average into a working model unless one was fine-tuned from the other; ensemble them instead "
                 "(nmt-translate -m A -m B)",
                 inputs.front(), inputs[i], first_run, next_run);
    }
    for (const auto& p : next.model->named_parameters()) sums.at(p.key()).add_(p.value().to(at::kDouble));
  }
  const auto n = static_cast<double>(inputs.size());
  for (auto& p : first.model->named_parameters()) p.value().copy_(sums.at(p.key()).div_(n));
  std::string note = "# nmt-checkpoint average of " + std::to_string(inputs.size()) + " checkpoint(s):";
  for (const auto& input : inputs) note += " " + input;
  save_checkpoint(output, first.model, first.source_tokenizer, first.target_tokenizer,
                  note + "\n" + first.training_config);
  log().info("averaged {} checkpoint(s) into {}", inputs.size(), output);
}

}  // namespace nmt
