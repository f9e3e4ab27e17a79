// nmt-translate: parse flags into a TranslateJob, check the flags only the command line has, and
// run the job (docs/search.md).
#include <unistd.h>

#include <string>

#include "apps/common/app_main.h"
#include "apps/common/libtorch_app.h"
#include "apps/common/option_table.h"
#include "apps/common/search_flags.h"
#include "nmt/core/error.h"
#include "nmt/core/file_io.h"
#include "nmt/translate/translate_job.h"

namespace {

// When to show sentences/s on stderr.
enum class ProgressMode { automatic, always, never };
const nmt::EnumNames<ProgressMode>& enum_names(ProgressMode) {
  static const nmt::EnumNames<ProgressMode> names(
      "progress mode", {{ProgressMode::automatic, "auto"}, {ProgressMode::always, "always"}, {ProgressMode::never, "never"}});
  return names;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Translate text with an nmt checkpoint: greedy or beam search, n-best lists, scores, attention and "
               "alignments, or score given translations (--score)."};
  nmt::app::add_common_options(app);
  ProgressMode progress = ProgressMode::automatic;
  bool score_mode = false;
  nmt::TranslateJob job;
  nmt::TranslateOptions& t = job.translate;
  app.add_option("--model,-m", job.checkpoints,
                 "Checkpoint written by nmt-train (.pt); repeated: an ensemble of the models (they share the target "
                 "subword model)")
      ->required();
  nmt::app::add_enum_option(app, "--ensemble-mode", job.ensemble_mode,
                            "How an ensemble combines the models' steps: log-linear (mean of log-probabilities) or "
                            "linear (log of the mean of probabilities)");
  nmt::app::add_enum_option(app, "--engine", job.engine,
                            "native: nmt's inference code; script: the model's TorchScript methods (any scripted "
                            "model that keeps the contract of docs/checkpoints.md)");
  app.add_option("--input,-i", job.input, "Source text, one sentence a line ('-': stdin)")->capture_default_str();
  app.add_option("--output,-o", job.output, "Translations ('-': stdout); written whole or not at all")->capture_default_str();
  nmt::app::add_search_flags(app, t.search, nmt::app::SearchFlags::translate);
  app.add_flag("--replace-unk", t.replace_unknown, "Replace <unk> by the source piece with the most attention");
  nmt::app::add_number_option(app, "--batch-tokens", t.max_tokens, "Source subwords per batch, padding included, times the beam size")
      ->capture_default_str();
  nmt::app::add_number_option(app, "--batch-sentences", t.max_sentences, "Sentences per batch (0: no limit)")->capture_default_str();
  nmt::app::add_number_option(app, "--workers", t.workers,
                 "Batches translated at once on the CPU, each with single-threaded BLAS (0: one per core, at most 4)")
      ->capture_default_str();
  nmt::app::add_number_option(app, "--max-source-length", t.max_source_length, "Longest source in subwords")->capture_default_str();
  nmt::app::add_enum_option(app, "--long-inputs", t.long_inputs, "Longer sources: truncate (with a warning) or reject");
  nmt::app::add_number_option(app, "--chunk-lines", job.stream.chunk_lines, "Lines read and sorted together")->capture_default_str();
  app.add_flag("--scores", job.scores, "Prefix each translation with its score and a tab");
  app.add_option_function<std::string>(
      "--tag", [&job](const std::string& tag) { job.tag = tag; },
      "Put this tag before every source: the output style or direction a model trained on tagged corpora offers "
      "(default: its data.default-tag; '' for none)");
  app.add_option("--shortlist", job.shortlist,
                 "A lexical shortlist (nmt-checkpoint shortlist): each sentence's output over its own list of target "
                 "pieces only (faster; --score ignores it)");
  app.add_option("--attention-output", job.attention_output, "Write the attention of each translation here (JSON lines)");
  app.add_option("--alignment-output", job.alignment_output, "Write hard word alignments here (s-t pairs)");
  app.add_flag("--score", score_mode, "Forced decoding: print log p(target | source) of the pairs instead");
  app.add_option("--targets,-t", job.score_targets, "With --score: the target sentences, line-parallel to the input");
  app.add_option("--device", job.device, "auto, cpu, cuda or cuda:N")->capture_default_str();
  nmt::app::add_precision_flags(app, job.precision, job.int8_products, nmt::app::SearchFlags::translate);
  nmt::app::add_number_option(app, "--threads", job.threads, "CPU intra-op threads")->capture_default_str();
  nmt::app::add_enum_option(app, "--progress", progress,
                            "Sentences/s on stderr (auto: when stderr is a terminal and stdout is not)");

  return nmt::app::run_with_libtorch(app, argc, argv, [&] {
    nmt::check_distinct_outputs({{"--output", job.output},
                                 {"--attention-output", job.attention_output},
                                 {"--alignment-output", job.alignment_output}});
    if (score_mode != !job.score_targets.empty()) throw nmt::ConfigError("--score and --targets go together");
    job.stream.progress = progress == ProgressMode::always ||
                          (progress == ProgressMode::automatic && isatty(STDERR_FILENO) && !isatty(STDOUT_FILENO));
    nmt::run_translate_job(job);
  });
}
