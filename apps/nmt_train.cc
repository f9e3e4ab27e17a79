// nmt-train: parse flags and a TOML file into TrainConfig, then run the library's Trainer, as one
// process, as one rank of a group, or as the supervisor of this machine's ranks (--dist.*).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "apps/common/app_main.h"
#include "apps/common/libtorch_app.h"
#include "apps/common/config_file.h"
#include "apps/common/train_options.h"
#include "nmt/core/allocator.h"
#include "nmt/core/exit_on_signal.h"
#include "nmt/dist/local_launcher.h"
#include "nmt/train/initial_checkpoint.h"
#include "nmt/train/trainer.h"

int main(int argc, char** argv) {
  CLI::App app{"Train an attention-based GRU translation model (docs/training.md, docs/distributed.md)."};
  nmt::app::add_common_options(app);
  nmt::app::add_config_file_option(app);
  nmt::app::TrainOptions options(app);

  int exit_status = 0;
  const int parsed = nmt::app::run_with_libtorch(app, argc, argv, [&] {
    // Until training (or the supervisor) takes SIGINT and SIGTERM as requests, either ends the
    // program at once with a line saying what it was doing (start-up has nothing to save).
    const std::string nothing = "nothing was written";
    const nmt::ExitOnSignal exit_on_signal("nmt-train", "starting up", nothing);
    nmt::TrainConfig config = options.config();
    if (!config.init_from.empty()) {
      nmt::ExitOnSignal::now("loading " + nmt::initial_checkpoint_path(config), nothing);
    }
    // --init-from: its architecture, and the checkpoint read once, for the trainer
    std::shared_ptr<nmt::Checkpoint> initial = nmt::adopt_initial_checkpoint(config, options.explicitly_set());
    config.validate();
    const nmt::LaunchPlan plan = nmt::plan_launch(config.dist, nmt::process_environment());
    if (plan.supervise) {
      initial.reset();  // the ranks read it themselves
      // The ranks run this program with the same arguments; they notice a failed rank within
      // dist.timeout (and a roll call), so that and a little more is how long they have before being killed.
      exit_status = nmt::supervise_local_ranks(config.dist, plan.rank, std::vector<std::string>(argv + 1, argv + argc),
                                               config.dist.timeout_s + 15);
      return;
    }
    nmt::keep_freed_memory();  // same-sized large tensors every step: reuse, do not unmap (allocator.h)
    nmt::Trainer trainer(config, plan.rank, std::move(initial));
    const nmt::TrainResult result = trainer.run();
    if (result.signal != 0) exit_status = 128 + result.signal;  // the shell's convention for a signal
  });
  return parsed != 0 ? parsed : exit_status;
}
