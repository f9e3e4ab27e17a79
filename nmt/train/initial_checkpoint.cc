#include "nmt/train/initial_checkpoint.h"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <type_traits>

#include "nmt/core/error.h"
#include "nmt/core/run_layout.h"
#include "nmt/data/tokenizer.h"
#include "nmt/train/run_directory.h"

namespace nmt {
namespace fs = std::filesystem;

namespace {

template <class T>
std::string text_of(const T& value) {
  if constexpr (std::is_enum_v<T>) {
    return name_of(value);
  } else if constexpr (std::is_same_v<T, bool>) {
    return value ? "true" : "false";
  } else if constexpr (std::is_arithmetic_v<T>) {
    std::ostringstream out;
    out << value;
    return out.str();
  } else if constexpr (std::is_same_v<T, std::string>) {
    return value;
  } else {
    return value.text();  // plot::ImageFormatChoice
  }
}

// A subword model option the user gave must be the checkpoint's.
void check_subword_option(const std::string& key, const std::string& path, const Tokenizer& expected,
                          const std::string& checkpoint) {
  if (path.empty()) return;
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    throw ConfigError(key + " = " + path + ": no such file; with init-from the subword models are " + checkpoint +
                      "'s (leave " + key + " unset)");
  }
  if (Tokenizer::load(path).model_bytes() != expected.model_bytes()) {
    throw ConfigError(key + " = " + path + " is not the subword model of init-from " + checkpoint +
                      ", which the run must use (leave " + key + " unset)");
  }
}

}  // namespace

std::string initial_checkpoint_path(const TrainConfig& config) {
  std::error_code ec;
  if (config.resume && fs::exists(RunLayout(config.run_dir).latest(), ec)) {
    return RunLayout(config.run_dir).checkpoint(RunDirectory::latest_stem_in(config.run_dir)).string();
  }
  return config.init_from;
}

ModelConfig fine_tuning_model(ModelConfig checkpoint, double dropout) {
  checkpoint.dropout = dropout;
  return checkpoint;
}

std::shared_ptr<Checkpoint> adopt_initial_checkpoint(TrainConfig& config,
                                                     const std::vector<std::string>& explicitly_set) {
  if (config.init_from.empty()) return nullptr;
  const std::string path = initial_checkpoint_path(config);
  auto checkpoint = std::make_shared<Checkpoint>(load_checkpoint(path));
  const auto given = [&](const std::string& key) {
    return std::find(explicitly_set.begin(), explicitly_set.end(), key) != explicitly_set.end();
  };
  const ModelConfig& theirs = checkpoint->model->config();
  TrainConfig from_checkpoint = config;
  from_checkpoint.model = fine_tuning_model(theirs, config.model.dropout);
  // Compare every [model] option the user set with the checkpoint's, by the option table's keys.
  std::vector<std::string> their_values;
  for_each_option(static_cast<const TrainConfig&>(from_checkpoint),
                  [&](const OptionDoc&, const auto& field) { their_values.push_back(text_of(field)); });
  std::size_t i = 0;
  for_each_option(static_cast<const TrainConfig&>(config), [&](const OptionDoc& doc, const auto& field) {
    const std::string key = doc.key;
    const std::string mine = text_of(field), checkpoint_value = their_values[i++];
    if (key.rfind("model.", 0) != 0 || !given(key) || mine == checkpoint_value) return;
    throw ConfigError(key + " = " + mine + " conflicts with init-from " + path + ", whose model has " +
                      checkpoint_value + " (a fine-tuning run keeps the architecture; leave " + key + " unset)");
  });
  config.model = fine_tuning_model(theirs, given("model.dropout") ? config.model.dropout : theirs.dropout);
  if (given("data.source-spm")) {
    check_subword_option("data.source-spm", config.data.source_spm, checkpoint->source_tokenizer, path);
  }
  if (given("data.target-spm")) {
    check_subword_option("data.target-spm", config.data.target_spm, checkpoint->target_tokenizer, path);
  }
  return checkpoint;
}

}  // namespace nmt
