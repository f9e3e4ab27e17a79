#include "nmt/translate/translate_job.h"

#include <ATen/Parallel.h>

#include <memory>

#include "nmt/core/allocator.h"
#include "nmt/core/device.h"
#include "nmt/core/error.h"
#include "nmt/core/text_output.h"
#include "nmt/core/thread_count.h"
#include "nmt/data/text_file.h"
#include "nmt/translate/loaded_models.h"
#include "nmt/translate/source_tags.h"

namespace nmt {

const EnumNames<TranslateEngine>& enum_names(TranslateEngine) {
  static const EnumNames<TranslateEngine> names("engine", {{TranslateEngine::native, "native"},
                                                           {TranslateEngine::script, "script"}});
  return names;
}

void TranslateJob::prepare() {
  check_thread_count(threads, "threads");
  if (checkpoints.empty()) throw ConfigError("model: give at least one checkpoint");
  if (stream.chunk_lines < 1) throw ConfigError("chunk-lines must be >= 1");
  translate.search.keep_attention = !attention_output.empty() || !alignment_output.empty();
  translate.validate();
  if (!int8_products.empty() && precision != Precision::int8) {
    throw ConfigError("int8-products needs precision int8");
  }
  inference_precision();  // a bad group is an option error too
}

InferencePrecision TranslateJob::inference_precision() const {
  if (precision != Precision::int8) return {};
  return int8_products.empty() ? InferencePrecision::of(precision)
                               : InferencePrecision::parse(int8_products, "int8-products");
}

StreamSummary run_translate_job(TranslateJob job) {
  job.prepare();  // option errors come first and fast
  keep_freed_memory();
  at::set_num_threads(job.threads);
  const c10::Device device = parse_device(job.device, job.inference_precision().any());
  const LoadedEnsemble loaded =
      load_models(job.checkpoints, job.engine, job.ensemble_mode, device, job.inference_precision());
  const LoadedModel& first = loaded.members.front();
  if (!job.shortlist.empty()) {  // read and checked with --score too, where it is not used
    auto shortlist = std::make_shared<const LexicalShortlist>(LexicalShortlist::load(job.shortlist));
    shortlist->check_tokenizers(first.source_tokenizer, first.target_tokenizer, job.shortlist, job.checkpoints.front());
    // Forced decoding scores the whole vocabulary: a given target may hold pieces of no list.
    if (job.score_targets.empty()) job.translate.shortlist = std::move(shortlist);
  }
  job.translate.source_tag = choose_tag(first.source_tokenizer, job.tag ? &*job.tag : nullptr,
                                       default_tag_of(first.training_config));
  Translator translator(loaded.decoder(), first.source_tokenizer, first.target_tokenizer, job.translate, device);

  TextLineReader reader(job.input);
  TextOutput out(job.output);
  StreamSummary summary;
  if (!job.score_targets.empty()) {
    TextLineReader targets(job.score_targets);
    summary = score_stream(translator, reader, targets, out.stream(), job.stream);
  } else {
    std::unique_ptr<TextOutput> attention, alignments;
    StreamOutputs outputs;
    outputs.translations = &out.stream();
    outputs.scores = job.scores;
    outputs.n_best = job.translate.search.n_best > 1;
    if (!job.attention_output.empty()) {
      attention = std::make_unique<TextOutput>(job.attention_output);
      outputs.attention = &attention->stream();
    }
    if (!job.alignment_output.empty()) {
      alignments = std::make_unique<TextOutput>(job.alignment_output);
      outputs.alignments = &alignments->stream();
    }
    summary = translate_stream(translator, reader, outputs, job.stream);
    if (attention) attention->finish();
    if (alignments) alignments->finish();
  }
  out.finish();
  return summary;
}

}  // namespace nmt
