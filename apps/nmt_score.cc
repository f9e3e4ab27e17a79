// nmt-score: corpus BLEU and chrF of a hypothesis file against reference files, as sacreBLEU scores.
#include <algorithm>
#include <iostream>

#include "apps/common/app_main.h"
#include "apps/common/option_table.h"
#include "nmt/core/text_list.h"
#include "nmt/core/error.h"
#include "nmt/core/text_output.h"
#include "nmt/eval/length_buckets.h"
#include "nmt/eval/scoring.h"
#include "nmt/plot/length_plot.h"

int main(int argc, char** argv) {
  CLI::App app{"Corpus BLEU and chrF of detokenized text against one or more references, with sacreBLEU's "
               "defaults and signatures."};
  nmt::app::add_common_options(app);
  std::vector<std::string> references, hypotheses = {"-"}, labels;
  std::string metrics = "bleu,chrf", plot;
  nmt::ScoringOptions options;
  bool json = false, by_length = false;
  nmt::LengthOf length_of = nmt::LengthOf::reference;
  std::string length_edges = "10,20,30,40,50", source;
  app.add_option("references", references, "Reference files, one sentence a line, line-parallel to the hypotheses")
      ->required();
  app.add_option("--input,-i", hypotheses,
                 "Hypothesis file ('-': stdin); with --by-length several, compared side by side")
      ->capture_default_str();
  app.add_option("--metrics", metrics, "Comma-separated metrics: bleu, chrf")->capture_default_str();
  app.add_flag("--lowercase,-l", options.lowercase, "Case-insensitive scores (both metrics)");
  nmt::app::add_enum_option(app, "--tokenize", options.tokenize, "BLEU tokenizer");
  nmt::app::add_number_option(app, "--width,-w", options.width, "Decimals of the printed scores")->capture_default_str();
  app.add_flag("--json", json, "Print one JSON object instead of text lines");
  app.add_flag("--by-length", by_length, "Scores per sentence-length bucket instead of one corpus score");
  nmt::app::add_enum_option(app, "--length-of", length_of,
                            "With --by-length: measure the source or the (first) reference, in words");
  app.add_option("--length-edges", length_edges, "With --by-length: bucket edges in words (0-9, 10-19, ..., 50+)")
      ->capture_default_str();
  app.add_option("--source", source, "With --by-length --length-of source: the source file, line-parallel");
  app.add_option("--label", labels, "With --by-length: a name per --input, in order (default: the file names)");
  app.add_option("--plot", plot, "With --by-length: draw the scores by length to this .svg, .png or .pdf file");

  return nmt::app::run(app, argc, argv, [&] {
    options.metrics = nmt::split_metric_list(metrics);
    options.validate();  // before reading: an option error needs no input
    if (!by_length && !source.empty()) throw nmt::ConfigError("--source goes with --by-length");
    if (!by_length && (hypotheses.size() > 1 || !labels.empty() || !plot.empty())) {
      throw nmt::ConfigError("several --input files, --label and --plot go with --by-length");
    }
    nmt::require_distinct(labels, "--label");  // a label names one system's column
    if (!labels.empty() && labels.size() != hypotheses.size()) {
      throw nmt::ConfigError("--label: " + std::to_string(labels.size()) + " labels for " +
                             std::to_string(hypotheses.size()) + " --input files");
    }
    if (std::count(hypotheses.begin(), hypotheses.end(), "-") > 1) {
      throw nmt::ConfigError("--input: standard input ('-') can be read once");
    }
    if (!plot.empty()) nmt::plot::image_format_of(plot);  // a bad extension fails before any scoring
    const nmt::LengthOf of = length_of;
    const auto edges = nmt::parse_length_edges(length_edges);
    if (by_length && of == nmt::LengthOf::source && source.empty()) {
      throw nmt::ConfigError("--length-of source needs --source FILE");
    }
    nmt::TextOutput output("-");
    if (by_length) {
      std::string name;
      const auto sources = source.empty() ? std::vector<std::string>() : nmt::read_stripped_lines(source, name);
      std::vector<nmt::SystemBuckets> systems;
      for (std::size_t i = 0; i < hypotheses.size(); ++i) {
        const auto input = nmt::read_scoring_input(hypotheses[i], references);
        systems.push_back({labels.empty() ? hypotheses[i] : labels[i],
                           nmt::score_by_length(input, sources, edges, of, options)});
      }
      if (!plot.empty()) nmt::plot::draw_length_curves(systems, of, options)->save(plot);
      output.stream() << (json ? nmt::length_buckets_json(systems, of, options) + "\n"
                               : nmt::format_length_buckets(systems, of, options));
    } else {
      const auto input = nmt::read_scoring_input(hypotheses.front(), references);
      const auto scores = nmt::score_corpus(input, options);
      output.stream() << (json ? nmt::scores_json(scores, options) + "\n" : nmt::format_scores(scores, options));
    }
    output.finish();
  });
}
