// nmt-train's options: every TrainConfig field as a flag (--train.max-steps) and a config-file key
// ([train] max-steps). One definition for the program and for the configuration fuzz target.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "nmt/train/train_config.h"

namespace nmt::app {

class TrainOptions {
 public:
  /// Registers the options on `app` (which must outlive this object); values land here on parse.
  explicit TrainOptions(CLI::App& app);
  TrainOptions(const TrainOptions&) = delete;
  TrainOptions& operator=(const TrainOptions&) = delete;

  /// The parsed configuration, names of kinds (attention, optimizer, ...) converted; throws
  /// ConfigError naming an unknown one.
  TrainConfig config() const;

 private:
  TrainConfig config_;
  std::string spm_type_ = "unigram", attention_ = "bahdanau", style_ = "bahdanau", bridge_ = "linear";
  std::string optimizer_ = "adam", schedule_ = "constant", metric_ = "bleu", backend_ = "auto";
};

}  // namespace nmt::app
