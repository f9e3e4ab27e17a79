// nmt-translate: parse flags into TranslateOptions and stream options, then run the library's
// Translator over the input (docs/translation.md).
#include <unistd.h>

#include <ATen/Parallel.h>

#include <memory>
#include <string>

#include "apps/common/app_main.h"
#include "nmt/core/allocator.h"
#include "nmt/core/device.h"
#include "nmt/core/error.h"
#include "nmt/core/file_io.h"
#include "nmt/core/thread_count.h"
#include "nmt/data/text_file.h"
#include "nmt/model/checkpoint.h"
#include "nmt/model/inference/inference_model.h"
#include "nmt/search/translate_stream.h"
#include "nmt/search/translator.h"

int main(int argc, char** argv) {
  CLI::App app{"Translate text with an nmt checkpoint: greedy or beam search, n-best lists, scores, attention and "
               "alignments, or score given translations (--score)."};
  nmt::app::add_common_options(app);
  std::string checkpoint, input = "-", output = "-", attention_output, alignment_output, score_targets;
  std::string device = "auto", length_penalty = "gnmt", long_inputs = "truncate", progress = "auto";
  int threads = 1;
  bool scores = false, score_mode = false;
  nmt::TranslateOptions t;
  nmt::StreamOptions stream;
  auto& s = t.search;
  app.add_option("--model,-m", checkpoint, "Checkpoint written by nmt-train (.pt)")->required();
  app.add_option("--input,-i", input, "Source text, one sentence a line ('-': stdin)")->capture_default_str();
  app.add_option("--output,-o", output, "Translations ('-': stdout); written whole or not at all")->capture_default_str();
  app.add_option("--beam-size,-b", s.beam_size, "Beam size (1: greedy search)")->capture_default_str();
  app.add_option("--n-best", s.n_best, "Hypotheses per sentence, Moses-style lines when > 1")->capture_default_str();
  app.add_option("--length-penalty", length_penalty, "none, average or gnmt ((5+|Y|)/6)^alpha")->capture_default_str();
  app.add_option("--length-alpha", s.length_alpha, "alpha of the gnmt length penalty")->capture_default_str();
  app.add_option("--coverage-beta", s.coverage_beta, "beta of the GNMT coverage penalty (0: off)")->capture_default_str();
  app.add_option("--max-length-a", s.max_length_a, "At most a*n+b target subwords for n source subwords")
      ->capture_default_str();
  app.add_option("--max-length-b", s.max_length_b, "See --max-length-a")->capture_default_str();
  app.add_option("--min-length", s.min_length, "No EOS before this many target subwords")->capture_default_str();
  app.add_option("--no-repeat-ngram", s.no_repeat_ngram, "Never repeat an n-gram of this many subwords (0: off)")
      ->capture_default_str();
  app.add_flag("--replace-unk", t.replace_unknown, "Replace <unk> by the source piece with the most attention");
  app.add_option("--batch-tokens", t.max_tokens, "Source subwords per batch, padding included, times the beam size")
      ->capture_default_str();
  app.add_option("--batch-sentences", t.max_sentences, "Sentences per batch (0: no limit)")->capture_default_str();
  app.add_option("--workers", t.workers,
                 "Batches translated at once on the CPU, each with single-threaded BLAS (0: one per core, at most 4)")
      ->capture_default_str();
  app.add_option("--max-source-length", t.max_source_length, "Longest source in subwords")->capture_default_str();
  app.add_option("--long-inputs", long_inputs, "Longer sources: truncate (with a warning) or reject")
      ->capture_default_str();
  app.add_option("--chunk-lines", stream.chunk_lines, "Lines read and sorted together")->capture_default_str();
  app.add_flag("--scores", scores, "Prefix each translation with its score and a tab");
  app.add_option("--attention-output", attention_output, "Write the attention of each translation here (JSON lines)");
  app.add_option("--alignment-output", alignment_output, "Write hard word alignments here (s-t pairs)");
  app.add_flag("--score", score_mode, "Forced decoding: print log p(target | source) of the pairs instead");
  app.add_option("--targets,-t", score_targets, "With --score: the target sentences, line-parallel to the input");
  app.add_option("--device", device, "auto, cpu, cuda or cuda:N")->capture_default_str();
  app.add_option("--threads", threads, "CPU intra-op threads")->capture_default_str();
  app.add_option("--progress", progress, "Sentences/s on stderr: auto (when stderr is a terminal and stdout is not), "
                                         "always or never")->capture_default_str();

  return nmt::app::run(app, argc, argv, [&] {
    s.length_penalty = nmt::parse_length_penalty(length_penalty);
    t.long_inputs = nmt::parse_long_input_policy(long_inputs);
    nmt::check_thread_count(threads, "--threads");
    nmt::check_distinct_outputs(
        {{"--output", output}, {"--attention-output", attention_output}, {"--alignment-output", alignment_output}});
    if (progress != "auto" && progress != "always" && progress != "never") {
      throw nmt::ConfigError("--progress must be auto, always or never, got '" + progress + "'");
    }
    if (score_mode != !score_targets.empty()) throw nmt::ConfigError("--score and --targets go together");
    if (stream.chunk_lines < 1) throw nmt::ConfigError("--chunk-lines must be >= 1");
    s.keep_attention = !attention_output.empty() || !alignment_output.empty();
    t.validate();  // before the checkpoint loads: option errors come first and fast
    stream.progress = progress == "always" || (progress == "auto" && isatty(STDERR_FILENO) && !isatty(STDOUT_FILENO));

    nmt::keep_freed_memory();
    at::set_num_threads(threads);
    const c10::Device target_device = nmt::parse_device(device);
    nmt::Checkpoint loaded = nmt::load_checkpoint(checkpoint, target_device);
    // Search steps the inference form; the trainable model is not needed after it is made.
    const std::unique_ptr<nmt::InferenceModel> model = loaded.model->for_inference(target_device);
    loaded.model = nullptr;
    nmt::Translator translator(*model, loaded.source_tokenizer, loaded.target_tokenizer, t, target_device);

    nmt::TextLineReader reader(input);
    nmt::app::TextOutput out(output);
    nmt::StreamSummary summary;
    if (score_mode) {
      nmt::TextLineReader targets(score_targets);
      summary = nmt::score_stream(translator, reader, targets, out.stream(), stream);
    } else {
      std::unique_ptr<nmt::app::TextOutput> attention, alignments;
      nmt::StreamOutputs outputs;
      outputs.translations = &out.stream();
      outputs.scores = scores;
      outputs.n_best = s.n_best > 1;
      if (!attention_output.empty()) {
        attention = std::make_unique<nmt::app::TextOutput>(attention_output);
        outputs.attention = &attention->stream();
      }
      if (!alignment_output.empty()) {
        alignments = std::make_unique<nmt::app::TextOutput>(alignment_output);
        outputs.alignments = &alignments->stream();
      }
      summary = nmt::translate_stream(translator, reader, outputs, stream);
      if (attention) attention->finish();
      if (alignments) alignments->finish();
    }
    out.finish();
  });
}
