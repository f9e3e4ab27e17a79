// nmt-train: parse flags and a TOML file into TrainConfig, then run the library's Trainer.
#include "apps/common/app_main.h"
#include "apps/common/config_file.h"
#include "apps/common/train_options.h"
#include "nmt/core/allocator.h"
#include "nmt/train/trainer.h"

int main(int argc, char** argv) {
  CLI::App app{"Train an attention-based GRU translation model (docs/training.md)."};
  nmt::app::add_common_options(app);
  nmt::app::add_config_file_option(app);
  nmt::app::TrainOptions options(app);

  int exit_status = 0;
  const int parsed = nmt::app::run(app, argc, argv, [&] {
    nmt::keep_freed_memory();  // same-sized large tensors every step: reuse, do not unmap (allocator.h)
    nmt::Trainer trainer(options.config(), nmt::app::effective_config(app));
    const nmt::TrainResult result = trainer.run();
    if (result.signal != 0) exit_status = 128 + result.signal;  // the shell's convention for a signal
  });
  return parsed != 0 ? parsed : exit_status;
}
