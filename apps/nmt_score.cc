// nmt-score: corpus BLEU and chrF of a hypothesis file against reference files, as sacreBLEU scores.
#include <iostream>

#include "apps/common/app_main.h"
#include "nmt/core/text_output.h"
#include "nmt/eval/scoring.h"

int main(int argc, char** argv) {
  CLI::App app{"Corpus BLEU and chrF of detokenized text against one or more references, with sacreBLEU's "
               "defaults and signatures."};
  nmt::app::add_common_options(app);
  std::vector<std::string> references;
  std::string hypotheses = "-", metrics = "bleu,chrf";
  nmt::ScoringOptions options;
  bool json = false;
  app.add_option("references", references, "Reference files, one sentence a line, line-parallel to the hypotheses")
      ->required();
  app.add_option("--input,-i", hypotheses, "Hypothesis file ('-': stdin)")->capture_default_str();
  app.add_option("--metrics", metrics, "Comma-separated metrics: bleu, chrf")->capture_default_str();
  app.add_flag("--lowercase,-l", options.lowercase, "Case-insensitive scores (both metrics)");
  app.add_option("--tokenize", options.tokenize, "BLEU tokenizer: 13a or none")->capture_default_str();
  app.add_option("--width,-w", options.width, "Decimals of the printed scores")->capture_default_str();
  app.add_flag("--json", json, "Print one JSON object instead of text lines");

  return nmt::app::run(app, argc, argv, [&] {
    options.metrics = nmt::split_metric_list(metrics);
    options.validate();  // before reading: an option error needs no input
    const auto input = nmt::read_scoring_input(hypotheses, references);
    const auto scores = nmt::score_corpus(input, options);
    nmt::TextOutput output("-");
    output.stream() << (json ? nmt::scores_json(scores, options) + "\n" : nmt::format_scores(scores, options));
    output.finish();
  });
}
