// nmt-train's options: every TrainConfig field of the library's option table (for_each_option) as
// a flag (--train.max-steps) and a config-file key ([train] max-steps), and --resume. One
// definition for the program and for the configuration fuzz target.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <utility>
#include <vector>

#include "nmt/train/train_config.h"

namespace nmt::app {

class TrainOptions {
 public:
  /// Registers the options on `app` (which must outlive this object); values land here on parse.
  explicit TrainOptions(CLI::App& app);
  TrainOptions(const TrainOptions&) = delete;
  TrainOptions& operator=(const TrainOptions&) = delete;

  /// The parsed configuration.
  const TrainConfig& config() const { return config_; }
  /// The option keys (model.dropout, ...) given on the command line or in the config file.
  std::vector<std::string> explicitly_set() const;

 private:
  TrainConfig config_;
  std::vector<std::pair<std::string, const CLI::Option*>> options_;
};

}  // namespace nmt::app
