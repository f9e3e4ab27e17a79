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

// The models of `paths` as one decoder: the model itself for one path, else an ensemble whose
// members with the first's source subword model read the translator's segmentation (view 0) and
// each other source subword model is a further view.
struct LoadedEnsemble {
  std::vector<LoadedModel> members;
  std::unique_ptr<const EnsembleDecoder> ensemble;
  std::vector<Tokenizer> extra_source_tokenizers;
  const IncrementalDecoder& decoder() const {
    return ensemble ? static_cast<const IncrementalDecoder&>(*ensemble) : *members.front().model;
  }
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

LoadedEnsemble load_models(const std::vector<std::string>& paths, TranslateEngine engine, EnsembleMode mode,
                           const c10::Device& device) {
  LoadedEnsemble loaded;
  for (const std::string& path : paths) loaded.members.push_back(load_model(path, engine, device));
  if (paths.size() == 1) return loaded;
  const LoadedModel& first = loaded.members.front();
  std::vector<EnsembleDecoder::Member> members;
  std::vector<const Tokenizer*> views{&first.source_tokenizer};
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const LoadedModel& m = loaded.members[i];
    if (m.target_tokenizer.model_bytes() != first.target_tokenizer.model_bytes()) {
      throw ConfigError("cannot ensemble " + paths[i] + " with " + paths.front() +
                        ": their target subword models differ (" + std::to_string(m.target_tokenizer.vocab_size()) +
                        " and " + std::to_string(first.target_tokenizer.vocab_size()) +
                        " pieces); the members of an ensemble must share the target vocabulary");
    }
    std::size_t view = 0;
    while (view < views.size() && views[view]->model_bytes() != m.source_tokenizer.model_bytes()) ++view;
    if (view == views.size()) {
      views.push_back(&m.source_tokenizer);
      loaded.extra_source_tokenizers.push_back(m.source_tokenizer);
    }
    members.push_back({m.model.get(), view});
  }
  loaded.ensemble = std::make_unique<EnsembleDecoder>(std::move(members), mode);
  return loaded;
}

}  // namespace

void TranslateJob::prepare() {
  check_thread_count(threads, "threads");
  if (checkpoints.empty()) throw ConfigError("model: give at least one checkpoint");
  if (stream.chunk_lines < 1) throw ConfigError("chunk-lines must be >= 1");
  translate.search.keep_attention = !attention_output.empty() || !alignment_output.empty();
  translate.validate();
}

StreamSummary run_translate_job(TranslateJob job) {
  job.prepare();  // option errors come first and fast
  keep_freed_memory();
  at::set_num_threads(job.threads);
  const c10::Device device = parse_device(job.device);
  const LoadedEnsemble loaded = load_models(job.checkpoints, job.engine, job.ensemble_mode, device);
  const LoadedModel& first = loaded.members.front();
  Translator translator(loaded.decoder(), first.source_tokenizer, first.target_tokenizer, job.translate, device,
                        loaded.extra_source_tokenizers);

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
