#include "nmt/translate/loaded_models.h"

#include "nmt/core/error.h"
#include "nmt/model/checkpoint.h"
#include "nmt/model/inference/inference_model.h"
#include "nmt/model/scripted_model.h"

namespace nmt {

namespace {

void check_int8(const InferencePrecision& precision, TranslateEngine engine, const c10::Device& device) {
  if (!precision.any()) return;
  if (engine == TranslateEngine::script) {
    throw ConfigError("precision int8 needs the native engine: a scripted model runs its own TorchScript methods");
  }
  if (!device.is_cpu()) throw ConfigError("precision int8 runs on the CPU, and the device is " + device.str());
}

LoadedModel load_model(const std::string& path, TranslateEngine engine, const c10::Device& device,
                       const InferencePrecision& precision, const InferencePrecision* int8_form) {
  if (engine == TranslateEngine::script) {
    ScriptedModel scripted = load_scripted_model(path, device);
    return {std::move(scripted.decoder), nullptr, std::move(scripted.source_tokenizer),
            std::move(scripted.target_tokenizer), "", ""};
  }
  Checkpoint checkpoint = load_checkpoint(path, device);
  // Search steps the inference form; the trainable model is not needed after it is made.
  return {checkpoint.model->for_inference(device, precision),
          int8_form != nullptr ? checkpoint.model->for_inference(device, *int8_form) : nullptr,
          std::move(checkpoint.source_tokenizer), std::move(checkpoint.target_tokenizer),
          std::move(checkpoint.training_config), std::move(checkpoint.toolkit_version)};
}

}  // namespace

LoadedEnsemble load_models(const std::vector<std::string>& paths, TranslateEngine engine, EnsembleMode mode,
                           const c10::Device& device, const InferencePrecision& precision,
                           const InferencePrecision* int8_form) {
  check_int8(precision, engine, device);
  if (int8_form != nullptr) check_int8(*int8_form, engine, device);
  LoadedEnsemble loaded;
  for (const std::string& path : paths) loaded.members.push_back(load_model(path, engine, device, precision, int8_form));
  if (paths.size() == 1) return loaded;
  const LoadedModel& first = loaded.members.front();
  std::vector<EnsembleDecoder::Member> members, int8_members;
  std::vector<const Tokenizer*> views{&first.source_tokenizer};
  std::vector<Tokenizer> further_views;
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
      further_views.push_back(m.source_tokenizer);
    }
    members.push_back({m.model.get(), view});
    if (m.int8_model) int8_members.push_back({m.int8_model.get(), view});
  }
  if (int8_form != nullptr) {
    loaded.int8_ensemble = std::make_unique<EnsembleDecoder>(std::move(int8_members), mode, SourceViews(further_views));
  }
  loaded.ensemble = std::make_unique<EnsembleDecoder>(std::move(members), mode, SourceViews(std::move(further_views)));
  return loaded;
}

}  // namespace nmt
