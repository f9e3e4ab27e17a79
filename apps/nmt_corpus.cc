// nmt-corpus prepare: a user's own parallel corpus, cleaned, filtered and split for training
// (docs/data.md, "Your own data"). The library does the work (nmt/data/corpus_preparation.h).
#include <iostream>

#include "apps/common/app_main.h"
#include "apps/common/option_table.h"
#include "nmt/core/file_io.h"
#include "nmt/data/corpus_preparation.h"

int main(int argc, char** argv) {
  CLI::App app{"Make a parallel corpus ready to train: clean, filter, split."};
  nmt::app::add_common_options(app);
  app.require_subcommand(1);
  nmt::CorpusPreparation o;
  std::string json;
  auto* prepare = app.add_subcommand(
      "prepare", "Read Moses-style files or a TSV; write OUTPUT_DIR/{train,dev,test}.{SRC,TGT} cleaned and filtered");
  prepare->add_option("--source,-s", o.source, "Source text, one segment a line (with --target)");
  prepare->add_option("--target,-t", o.target, "Target text, line-parallel to the source");
  prepare->add_option("--key-file", o.key_file, "A group key per line (a document, a book), line-parallel: no group in two splits");
  prepare->add_option("--tsv", o.tsv, "Or one tab-separated file (no quoting)");
  prepare->add_option("--source-column", o.source_column, "Its source column: a name from its first line, or a number from 1 (no header)");
  prepare->add_option("--target-column", o.target_column, "Its target column, as --source-column");
  prepare->add_option("--key-column", o.key_column, "Its group key column, as --source-column (optional)");
  prepare->add_option("--output-dir,-o", o.output_dir, "Folder for train/dev/test files (made if missing)")->required();
  prepare->add_option("--source-suffix", o.source_suffix, "Extension of the source files, e.g. es")->capture_default_str();
  prepare->add_option("--target-suffix", o.target_suffix, "Extension of the target files, e.g. en")->capture_default_str();
  nmt::app::add_number_option(*prepare, "--max-words", o.max_words, "Drop pairs with a side longer than this many words (0: no limit)")
      ->capture_default_str();
  nmt::app::add_number_option(*prepare, "--max-ratio", o.max_ratio, "Drop pairs whose longer side has more than this many times the shorter's words (0: no limit)")
      ->capture_default_str();
  prepare->add_flag("--keep-identical", o.keep_identical, "Keep pairs whose two sides are the same text");
  nmt::app::add_number_option(*prepare, "--dev-size", o.dev_size, "Pairs for dev (whole groups with keys)")->capture_default_str();
  nmt::app::add_number_option(*prepare, "--test-size", o.test_size, "Pairs for test (whole groups with keys)")->capture_default_str();
  nmt::app::add_number_option(*prepare, "--seed", o.seed, "Seed of the split")->capture_default_str();
  prepare->add_flag("--force", o.replace, "Replace output files that exist");
  prepare->add_option("--json", json, "Also write the report as JSON to this file");

  return nmt::app::run(app, argc, argv, [&] {
    if (!json.empty()) nmt::refuse_existing_output(json, o.replace);
    const nmt::PreparationReport report = nmt::prepare_corpus(o);
    std::cout << nmt::format_preparation_report(report);
    if (!json.empty()) nmt::write_file_atomic(json, nmt::preparation_report_json(report) + "\n");
  });
}
