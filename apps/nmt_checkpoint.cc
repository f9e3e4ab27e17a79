// nmt-checkpoint: operations on checkpoint files (docs/checkpoints.md). upgrade: rewrite a
// checkpoint of an older format in the current one (format 3 adds the TorchScript methods).
#include "apps/common/app_main.h"
#include "nmt/model/checkpoint.h"

int main(int argc, char** argv) {
  CLI::App app{"Operations on nmt checkpoints."};
  nmt::app::add_common_options(app);
  app.require_subcommand(1);

  std::string input, output;
  bool force = false;
  auto* upgrade = app.add_subcommand(
      "upgrade", "Rewrite a checkpoint (any format this nmt reads) in the current format, with its TorchScript methods");
  upgrade->add_option("input", input, "Checkpoint to read")->required();
  upgrade->add_option("output", output, "Checkpoint to write (atomically)")->required();
  upgrade->add_flag("--force", force, "Replace OUTPUT if it exists");

  return nmt::app::run(app, argc, argv, [&] {
    if (upgrade->parsed()) nmt::upgrade_checkpoint(input, output, force);
  });
}
