#include "nmt/translate/translate_job.h"

#include <ATen/Parallel.h>

#include <memory>

#include "nmt/core/allocator.h"
#include "nmt/core/device.h"
#include "nmt/core/error.h"
#include "nmt/core/text_output.h"
#include "nmt/core/thread_count.h"
#include "nmt/data/text_file.h"
#include "nmt/model/checkpoint.h"
#include "nmt/model/inference/inference_model.h"
#include "nmt/model/scripted_model.h"

namespace nmt {

const EnumNames<TranslateEngine>& enum_names(TranslateEngine) {
  static const EnumNames<TranslateEngine> names("engine", {{TranslateEngine::native, "native"},
                                                           {TranslateEngine::script, "script"}});
  return names;
}

namespace {

struct LoadedModel {
  std::unique_ptr<const IncrementalDecoder> model;
  Tokenizer source_tokenizer, target_tokenizer;
};

LoadedModel load_model(const std::string& path, TranslateEngine engine, const c10::Device& device) {
  if (engine == TranslateEngine::script) {
    ScriptedModel scripted = load_scripted_model(path, device);
    return {std::move(scripted.decoder), std::move(scripted.source_tokenizer), std::move(scripted.target_tokenizer)};
  }
  Checkpoint checkpoint = load_checkpoint(path, device);
  // Search steps the inference form; the trainable model is not needed after it is made.
  return {checkpoint.model->for_inference(device), std::move(checkpoint.source_tokenizer),
          std::move(checkpoint.target_tokenizer)};
}

}  // namespace

void TranslateJob::prepare() {
  check_thread_count(threads, "threads");
  if (stream.chunk_lines < 1) throw ConfigError("chunk-lines must be >= 1");
  translate.search.keep_attention = !attention_output.empty() || !alignment_output.empty();
  translate.validate();
}

StreamSummary run_translate_job(TranslateJob job) {
  job.prepare();  // option errors come first and fast
  keep_freed_memory();
  at::set_num_threads(job.threads);
  const c10::Device device = parse_device(job.device);
  const LoadedModel loaded = load_model(job.checkpoint, job.engine, device);
  Translator translator(*loaded.model, loaded.source_tokenizer, loaded.target_tokenizer, job.translate, device);

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
