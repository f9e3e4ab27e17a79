// Translation speed of a checkpoint on a source file, as nmt-translate runs it, and where the
// time goes: model load and tokenization are excluded from the timing; --profile adds a second
// pass under the ATen operator profiler (bench/op_profiler.h).
//
//   bench_translate CHECKPOINT SOURCE [--beam K] [--batch-tokens T] [--repeat N] [--output PATH]
//                   [--profile]
//     --beam K          beam size, 1 for greedy (default 5)
//     --batch-tokens T  as nmt-translate's --batch-tokens (default: its default)
//     --workers W       as nmt-translate's --workers (default: its default, one per core)
//     --repeat N        translate the file N times, report the fastest (default 1)
//     --output PATH     write the translations there, one line per input line
//     --profile         also print the operator profile of one more pass
//     --shortlist FILE  a lexical shortlist (nmt-checkpoint shortlist), as nmt-translate's --shortlist
//     --int8 GROUPS     products in int8 (as nmt-translate --precision int8 --int8-products GROUPS:
//                       output,decoder,attention,encoder,memory or all; "default": what --precision int8
//                       runs; default none: float32)
// scripts/bench_translate.sh runs it beside the Python search; results in docs/benchmarks.md.
#include <ATen/Parallel.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench/bench_util.h"
#include "bench/op_profiler.h"
#include "nmt/core/allocator.h"
#include "nmt/data/text_file.h"
#include "nmt/model/checkpoint.h"
#include "nmt/model/inference/inference_model.h"
#include "nmt/search/lexical_shortlist.h"
#include "nmt/translate/translator.h"

namespace {

struct Options {
  std::string checkpoint, source, output, shortlist, int8 = "none";
  std::int64_t beam = 5, batch_tokens = 0;
  int workers = -1;
  int repeat = 1;
  bool profile = false;
};

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"Translation speed of a checkpoint: the Translator that nmt-translate runs (scripts/bench_translate.sh)."};
  app.add_option("checkpoint", o.checkpoint, "Checkpoint (.pt)")->required();
  app.add_option("source", o.source, "Sentences to translate, one a line")->required();
  app.add_option("--beam", o.beam, "Beam size (1: greedy)")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--batch-tokens", o.batch_tokens, "Batch budget (0: nmt-translate's default)")->capture_default_str();
  app.add_option("--workers", o.workers, "Translator workers (-1: nmt-translate's default)")->capture_default_str();
  app.add_option("--repeat", o.repeat, "Runs; the fastest is reported")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--output", o.output, "Write the translations here");
  app.add_flag("--profile", o.profile, "Also print the operator profile");
  app.add_option("--shortlist", o.shortlist, "A lexical shortlist (nmt-checkpoint shortlist)");
  app.add_option("--int8", o.int8, "Products in int8: output,decoder,attention,encoder,memory, all, default or none")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    nmt::keep_freed_memory();  // as nmt-translate does
    at::set_num_threads(1);
    std::vector<std::string> lines;
    nmt::TextLineReader reader(o.source);
    for (std::string line; reader.next(line);) lines.push_back(line);

    nmt::Checkpoint loaded = nmt::load_checkpoint(o.checkpoint, c10::Device(c10::kCPU));
    // Search steps the inference form; the trainable model is not needed after it is made.
    const nmt::InferencePrecision precision = o.int8 == "default"
                                                  ? nmt::InferencePrecision::of(nmt::Precision::int8)
                                                  : nmt::InferencePrecision::parse(o.int8, "--int8");
    const std::unique_ptr<nmt::InferenceModel> model = loaded.model->for_inference(c10::Device(c10::kCPU), precision);
    loaded.model = nullptr;
    nmt::TranslateOptions options;
    options.search.beam_size = o.beam;
    if (o.batch_tokens > 0) options.max_tokens = o.batch_tokens;
    if (o.workers >= 0) options.workers = o.workers;
    if (!o.shortlist.empty()) {
      options.shortlist = std::make_shared<const nmt::LexicalShortlist>(nmt::LexicalShortlist::load(o.shortlist));
    }
    nmt::Translator translator(*model, loaded.source_tokenizer, loaded.target_tokenizer, options,
                               c10::Device(c10::kCPU));

    std::vector<nmt::Translation> out;
    double best = 1e300;
    for (int run = 0; run < o.repeat; ++run) {
      nmt::bench::Stopwatch clock;
      out = translator.translate(lines);
      best = std::min(best, clock.seconds());
    }
    std::int64_t target_tokens = 0;
    for (const auto& t : out) {
      if (!t.hypotheses.empty()) target_tokens += static_cast<std::int64_t>(t.hypotheses.front().tokens.size());
    }
    const double sentences = static_cast<double>(lines.size());
    std::printf("bench_translate (C++): %s %lld, %zu sentences, %lld target tokens (EOS not counted) in %.3f s "
                "(fastest of %d): %.2f sentences/s, %.1f target tokens/s; batch tokens %lld, workers %d; int8: %s "
                "(%s)%s\n",
                o.beam == 1 ? "greedy" : "beam", static_cast<long long>(o.beam), lines.size(),
                static_cast<long long>(target_tokens), best, o.repeat, sentences / best,
                static_cast<double>(target_tokens) / best, static_cast<long long>(options.max_tokens), options.workers,
                precision.describe().c_str(), precision.any() ? nmt::int8_kernel().c_str() : "-",
                o.shortlist.empty() ? "" : "; shortlist");
    std::printf("peak resident memory %.1f MiB\n", nmt::bench::proc_status_mib("VmHWM"));
    if (!o.output.empty()) {
      std::ofstream file(o.output);
      for (const auto& t : out) file << (t.hypotheses.empty() ? "" : t.hypotheses.front().text) << '\n';
      if (!file) throw std::runtime_error("cannot write " + o.output);
    }
    if (o.profile) {
      nmt::bench::Stopwatch clock;
      {
        nmt::bench::OpProfiler profiler;
        translator.translate(lines);
      }
      nmt::bench::print_profile(nmt::bench::OpProfiler::take(), 1, clock.seconds(), "passes over the file");
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_translate: %s\n", e.what());
    return 1;
  }
}
