// nmt-corpus-stats: tokenize a parallel corpus as training will, and report what it contains.
#include <iostream>

#include "apps/common/app_main.h"
#include "apps/common/option_table.h"
#include "nmt/data/corpus_stats.h"
#include "nmt/data/parallel_corpus.h"
#include "nmt/data/tokenizer.h"

int main(int argc, char** argv) {
  CLI::App app{"Statistics of a parallel corpus under a subword model and a batching setup."};
  nmt::app::add_common_options(app);
  std::string source, target, source_model, target_model;
  nmt::CorpusFilterOptions filter;
  nmt::BatchingOptions batching;
  bool json = false;
  app.add_option("--source,-s", source, "Source text, one sentence a line")->required();
  app.add_option("--target,-t", target, "Target text, line-parallel to the source")->required();
  app.add_option("--source-model", source_model, "Source SentencePiece model (or the joint one)")->required();
  app.add_option("--target-model", target_model, "Target SentencePiece model (default: the source model)");
  nmt::app::add_number_option(app, "--max-length", filter.max_length, "Drop pairs with a side longer than this (0: no limit)")
      ->capture_default_str();
  nmt::app::add_number_option(app, "--max-length-ratio", filter.max_length_ratio, "Drop pairs above this length ratio (0: none)")
      ->capture_default_str();
  nmt::app::add_number_option(app, "--max-tokens", batching.max_tokens, "Token budget per batch, padding included")
      ->capture_default_str();
  nmt::app::add_number_option(app, "--seed", batching.seed, "Batching seed")->capture_default_str();
  app.add_flag("--json", json, "Print one JSON object instead of a table");

  return nmt::app::run(app, argc, argv, [&] {
    const auto source_tokenizer = nmt::Tokenizer::load(source_model);
    const auto target_tokenizer = target_model.empty() ? source_tokenizer : nmt::Tokenizer::load(target_model);
    const auto corpus = nmt::ParallelCorpus::load(source, target, source_tokenizer, target_tokenizer, filter);
    const auto stats = nmt::compute_corpus_stats(corpus, batching);
    std::cout << (json ? nmt::corpus_stats_json(stats) + "\n" : nmt::format_corpus_stats(stats));
  });
}
