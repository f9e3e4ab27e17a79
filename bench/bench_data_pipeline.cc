// Measures the data pipeline on a real corpus: tokenizing and loading, memory held, planning an
// epoch, building its tensors, and subword sampling. Usage:
//   bench_data_pipeline SOURCE TARGET SPM_MODEL [MAX_TOKENS]
#include <cstdio>
#include <cstdlib>
#include <exception>

#include <CLI/CLI.hpp>

#include "bench/bench_util.h"
#include "nmt/data/text_file.h"
#include "nmt/data/batch.h"
#include "nmt/data/batching.h"
#include "nmt/data/parallel_corpus.h"
#include "nmt/data/tokenizer.h"

int main(int argc, char** argv) {
  std::string source, target, spm_model;
  std::int64_t max_tokens = 2000;
  CLI::App app{"Time of the data pipeline: reading, segmenting, filtering and batching a corpus."};
  app.add_option("source", source, "Source text")->required();
  app.add_option("target", target, "Target text")->required();
  app.add_option("spm_model", spm_model, "Joint SentencePiece model")->required();
  app.add_option("max_tokens", max_tokens, "Batch budget")->capture_default_str()->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  try {
    using nmt::bench::proc_status_mib;
    using nmt::bench::Stopwatch;
    const double rss_start = proc_status_mib("VmRSS");
    const auto tokenizer = nmt::Tokenizer::load(spm_model);

    Stopwatch load_clock;
    const auto corpus = nmt::ParallelCorpus::load(source, target, tokenizer, tokenizer);
    const double load_s = load_clock.seconds();
    const double rss_corpus = proc_status_mib("VmRSS");
    const double subwords = static_cast<double>(corpus.source_tokens() + corpus.target_tokens());
    std::printf("load+tokenize   %zu pairs, %.0f subwords in %.2f s: %.0f pairs/s\n", corpus.size(), subwords,
                load_s, static_cast<double>(corpus.size()) / load_s);
    std::printf("memory          RSS %.1f MiB -> %.1f MiB after loading (%.1f bytes per subword)\n", rss_start,
                rss_corpus, (rss_corpus - rss_start) * 1048576.0 / subwords);

    nmt::BatchingOptions options;
    options.max_tokens = max_tokens;
    Stopwatch plan_clock;
    const auto plan = nmt::plan_epoch(corpus, options, 0);
    const double plan_s = plan_clock.seconds();
    std::printf("plan epoch      %zu batches (max tokens %lld) in %.1f ms\n", plan.size(),
                static_cast<long long>(options.max_tokens), 1000 * plan_s);

    Stopwatch batch_clock;
    std::int64_t tokens = 0;
    for (const auto& indices : plan) tokens += nmt::make_batch(corpus, indices).target_tokens;
    const double batch_s = batch_clock.seconds();
    std::printf("make_batch      one epoch in %.2f s: %.0f batches/s, %.0f target tokens/s\n", batch_s,
                static_cast<double>(plan.size()) / batch_s, static_cast<double>(tokens) / batch_s);

    std::vector<std::string> sentences;
    {
      nmt::TextLineReader reader(source);
      for (std::string line; sentences.size() < 2000 && reader.next(line);) {
        if (!line.empty()) sentences.push_back(line);
      }
    }
    Stopwatch encode_clock;
    for (const auto& s : sentences) tokenizer.encode(s);
    const double encode_s = encode_clock.seconds();
    Stopwatch sample_clock;
    tokenizer.sample_encode(sentences, {0.1f, -1}, 1);
    const double sample_s = sample_clock.seconds();
    std::printf("encode          %.0f sentences/s best segmentation, %.0f sentences/s sampled (alpha 0.1)\n",
                static_cast<double>(sentences.size()) / encode_s, static_cast<double>(sentences.size()) / sample_s);
    std::printf("peak memory     %.1f MiB\n", proc_status_mib("VmHWM"));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_data_pipeline: %s\n", e.what());
    return 1;
  }
}
