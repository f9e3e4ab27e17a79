// nmt-checkpoint: operations on checkpoint files (docs/checkpoints.md). upgrade: rewrite a
// checkpoint of an older format in the current one (format 3 adds the TorchScript methods).
// average: the mean of several checkpoints' parameters (explicit files, or a run's last or best N).
// shortlist: a lexical shortlist for a checkpoint from a parallel corpus (nmt-translate --shortlist).
#include "apps/common/app_main.h"
#include "apps/common/libtorch_app.h"
#include "apps/common/option_table.h"
#include "nmt/core/error.h"
#include "nmt/model/checkpoint.h"
#include "nmt/model/checkpoint_average.h"
#include "nmt/train/run_checkpoints.h"
#include "nmt/translate/shortlist_builder.h"

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

  std::vector<std::string> inputs;
  std::int64_t last = 0, best = 0;
  nmt::ValidationMetric metric = nmt::ValidationMetric::bleu;
  auto* average = app.add_subcommand(
      "average",
      "Average the parameters of checkpoints of one architecture and subword models: the files given, or with --last "
      "or --best the step checkpoints of one run directory");
  average->add_option("inputs", inputs, "Checkpoints (.pt), or one run directory with --last or --best")->required();
  average->add_option("-o,--output", output, "Checkpoint to write (atomically)")->required();
  auto* last_option = nmt::app::add_number_option(*average, "--last", last, "The run directory's newest N step checkpoints");
  auto* best_option =
      nmt::app::add_number_option(*average, "--best", best, "The run directory's N best step checkpoints by --metric (of those it kept)");
  last_option->excludes(best_option);
  nmt::app::add_enum_option(*average, "--metric", metric, "With --best: the dev metric of metrics.jsonl that ranks");
  average->add_flag("--force", force, "Replace OUTPUT if it exists (it may be one of the inputs)");

  nmt::ShortlistBuildOptions shortlist_options;
  auto* shortlist = app.add_subcommand(
      "shortlist",
      "Build a lexical shortlist for a checkpoint from a parallel corpus (its training text): for each source piece the "
      "target pieces with the best Dice coefficient of co-occurrence, plus the most frequent target pieces");
  shortlist->add_option("checkpoint", shortlist_options.checkpoint, "The checkpoint (its subword models segment the text)")
      ->required();
  shortlist->add_option("--source", shortlist_options.source, "Source side of the corpus, one sentence a line")
      ->required();
  shortlist->add_option("--target", shortlist_options.target, "Target side, line-parallel to --source")->required();
  shortlist->add_option("-o,--output", shortlist_options.output, "Shortlist to write (atomically)")->required();
  nmt::app::add_number_option(*shortlist, "--top-k", shortlist_options.top_k, "Target pieces per source piece")
      ->capture_default_str();
  nmt::app::add_number_option(*shortlist, "--frequent", shortlist_options.frequent,
                              "Most frequent target pieces, in every sentence's list")
      ->capture_default_str();
  shortlist->add_flag("--force", shortlist_options.replace, "Replace OUTPUT if it exists");

  return nmt::app::run_with_libtorch(app, argc, argv, [&] {
    if (shortlist->parsed()) nmt::build_shortlist(shortlist_options);
    if (upgrade->parsed()) nmt::upgrade_checkpoint(input, output, force);
    if (average->parsed()) {
      std::vector<std::string> files = inputs;
      if (last_option->count() > 0 || best_option->count() > 0) {
        if (inputs.size() != 1) {
          throw nmt::ConfigError("--last and --best take one run directory, got " + std::to_string(inputs.size()) +
                                 " inputs");
        }
        files = last_option->count() > 0
                    ? nmt::choose_run_checkpoints(inputs.front(), nmt::RunCheckpointChoice::last, last)
                    : nmt::choose_run_checkpoints(inputs.front(), nmt::RunCheckpointChoice::best, best, metric);
      }
      nmt::average_checkpoints(files, output, force);
    }
  });
}
