// nmt-score: corpus BLEU and chrF of a hypothesis file against reference files, as sacreBLEU scores.
#include <iostream>

#include "apps/common/app_main.h"
#include "nmt/core/error.h"
#include "nmt/core/text_output.h"
#include "nmt/eval/length_buckets.h"
#include "nmt/eval/scoring.h"

int main(int argc, char** argv) {
  CLI::App app{"Corpus BLEU and chrF of detokenized text against one or more references, with sacreBLEU's "
               "defaults and signatures."};
  nmt::app::add_common_options(app);
  std::vector<std::string> references;
  std::string hypotheses = "-", metrics = "bleu,chrf";
  nmt::ScoringOptions options;
  bool json = false, by_length = false;
  std::string length_of = "reference", length_edges = "10,20,30,40,50", source;
  app.add_option("references", references, "Reference files, one sentence a line, line-parallel to the hypotheses")
      ->required();
  app.add_option("--input,-i", hypotheses, "Hypothesis file ('-': stdin)")->capture_default_str();
  app.add_option("--metrics", metrics, "Comma-separated metrics: bleu, chrf")->capture_default_str();
  app.add_flag("--lowercase,-l", options.lowercase, "Case-insensitive scores (both metrics)");
  app.add_option("--tokenize", options.tokenize, "BLEU tokenizer: 13a or none")->capture_default_str();
  app.add_option("--width,-w", options.width, "Decimals of the printed scores")->capture_default_str();
  app.add_flag("--json", json, "Print one JSON object instead of text lines");
  app.add_flag("--by-length", by_length, "Scores per sentence-length bucket instead of one corpus score");
  app.add_option("--length-of", length_of, "With --by-length: measure the source or the (first) reference, in words")
      ->capture_default_str();
  app.add_option("--length-edges", length_edges, "With --by-length: bucket edges in words (0-9, 10-19, ..., 50+)")
      ->capture_default_str();
  app.add_option("--source", source, "With --by-length --length-of source: the source file, line-parallel");

  return nmt::app::run(app, argc, argv, [&] {
    options.metrics = nmt::split_metric_list(metrics);
    options.validate();  // before reading: an option error needs no input
    if (!by_length && !source.empty()) throw nmt::ConfigError("--source goes with --by-length");
    const nmt::LengthOf of = nmt::parse_length_of(length_of);
    const auto edges = nmt::parse_length_edges(length_edges);
    if (by_length && of == nmt::LengthOf::source && source.empty()) {
      throw nmt::ConfigError("--length-of source needs --source FILE");
    }
    const auto input = nmt::read_scoring_input(hypotheses, references);
    nmt::TextOutput output("-");
    if (by_length) {
      std::string name;
      const auto sources = source.empty() ? std::vector<std::string>() : nmt::read_stripped_lines(source, name);
      const auto buckets = nmt::score_by_length(input, sources, edges, of, options);
      output.stream() << (json ? nmt::length_buckets_json(buckets, of, options) + "\n"
                               : nmt::format_length_buckets(buckets, of, options));
    } else {
      const auto scores = nmt::score_corpus(input, options);
      output.stream() << (json ? nmt::scores_json(scores, options) + "\n" : nmt::format_scores(scores, options));
    }
    output.finish();
  });
}
