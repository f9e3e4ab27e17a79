#include "apps/common/train_options.h"

#include "apps/common/option_table.h"

namespace nmt::app {

TrainOptions::TrainOptions(CLI::App& app) {
  app.add_flag("--resume", config_.resume, "Continue the run in --run-dir from its latest checkpoint")->configurable(false);
  for_each_option(config_, [&](const OptionDoc& doc, auto& field) {
    options_.emplace_back(doc.key, add_table_option(app, doc, field));
  });
}

std::vector<std::string> TrainOptions::explicitly_set() const {
  std::vector<std::string> keys;
  for (const auto& [key, option] : options_) {
    if (option->count() > 0) keys.push_back(key);
  }
  return keys;
}

}  // namespace nmt::app
