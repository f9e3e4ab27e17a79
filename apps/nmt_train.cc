// nmt-train: parse flags and a TOML file into TrainConfig, then run the library's Trainer, as one
// process, as one rank of a group, or as the supervisor of this machine's ranks (--dist.*).
#include <string>
#include <vector>

#include "apps/common/app_main.h"
#include "apps/common/config_file.h"
#include "apps/common/train_options.h"
#include "nmt/core/allocator.h"
#include "nmt/dist/local_launcher.h"
#include "nmt/train/initial_checkpoint.h"
#include "nmt/train/trainer.h"

int main(int argc, char** argv) {
  CLI::App app{"Train an attention-based GRU translation model (docs/training.md, docs/distributed.md)."};
  nmt::app::add_common_options(app);
  nmt::app::add_config_file_option(app);
  nmt::app::TrainOptions options(app);

  int exit_status = 0;
  const int parsed = nmt::app::run(app, argc, argv, [&] {
    nmt::TrainConfig config = options.config();
    nmt::adopt_initial_checkpoint(config, options.explicitly_set());  // --init-from: its architecture
    config.validate();
    const nmt::LaunchPlan plan = nmt::plan_launch(config.dist, nmt::process_environment());
    if (plan.supervise) {
      // The ranks run this program with the same arguments; they notice a failed rank within
      // dist.timeout (and a roll call), so that and a little more is how long they have before being killed.
      exit_status = nmt::supervise_local_ranks(config.dist, plan.rank, std::vector<std::string>(argv + 1, argv + argc),
                                               config.dist.timeout_s + 15);
      return;
    }
    nmt::keep_freed_memory();  // same-sized large tensors every step: reuse, do not unmap (allocator.h)
    nmt::Trainer trainer(config, plan.rank);
    const nmt::TrainResult result = trainer.run();
    if (result.signal != 0) exit_status = 128 + result.signal;  // the shell's convention for a signal
  });
  return parsed != 0 ? parsed : exit_status;
}
