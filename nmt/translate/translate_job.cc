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

namespace nmt {

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
  Checkpoint loaded = load_checkpoint(job.checkpoint, device);
  // Search steps the inference form; the trainable model is not needed after it is made.
  const std::unique_ptr<InferenceModel> model = loaded.model->for_inference(device);
  loaded.model = nullptr;
  Translator translator(*model, loaded.source_tokenizer, loaded.target_tokenizer, job.translate, device);

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
