#include "apps/common/train_options.h"

#include "apps/common/option_table.h"

namespace nmt::app {

TrainOptions::TrainOptions(CLI::App& app) {
  app.add_flag("--resume", config_.resume, "Continue the run in --run-dir from its latest checkpoint")->configurable(false);
  for_each_option(config_, [&](const OptionDoc& doc, auto& field) { add_table_option(app, doc, field); });
}

}  // namespace nmt::app
