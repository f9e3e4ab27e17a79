// Loading what a translation runs: one checkpoint, or several as an ensemble, on a device, with
// the native engine or the checkpoints' TorchScript methods. nmt-translate and nmt-serve share it.
#pragma once

#include <c10/core/Device.h>

#include <memory>
#include <string>
#include <vector>

#include "nmt/data/tokenizer.h"
#include "nmt/model/ensemble_decoder.h"
#include "nmt/model/incremental_decoder.h"
#include "nmt/model/inference/inference_precision.h"
#include "nmt/translate/translate_job.h"

namespace nmt {

struct LoadedModel {
  std::unique_ptr<const IncrementalDecoder> model;
  std::unique_ptr<const IncrementalDecoder> int8_model;  // the int8 form load_models was asked for; else null
  Tokenizer source_tokenizer, target_tokenizer;
  std::string training_config;  // nmt-train's effective configuration (TOML); empty for scripted models
  std::string toolkit_version;  // of the nmt that wrote the checkpoint; empty for scripted models
};

/// The models of `paths` as one decoder: the model itself for one path, else an ensemble whose
/// members with the first's source subword model read the translator's segmentation (view 0) and
/// each other source subword model is a further view.
struct LoadedEnsemble {
  std::vector<LoadedModel> members;
  std::unique_ptr<const EnsembleDecoder> ensemble;  // owns the further source views' subword models
  std::unique_ptr<const EnsembleDecoder> int8_ensemble;  // the members' int8 forms, when they have them
  const IncrementalDecoder& decoder() const {
    return ensemble ? static_cast<const IncrementalDecoder&>(*ensemble) : *members.front().model;
  }
  /// The int8 forms as one decoder; null when load_models was not asked for them.
  const IncrementalDecoder* int8_decoder() const {
    if (int8_ensemble) return int8_ensemble.get();
    return members.size() == 1 ? members.front().int8_model.get() : nullptr;
  }
};

/// ConfigError when the members' target subword models differ (naming both files). `precision`:
/// which products of the native engine's models run in int8 (the CPU only; ConfigError when int8
/// is asked of the script engine or another device). `int8_form`, when given: each model also
/// gets a second inference form with those products in int8 (nmt-serve's requests choose), made
/// from the same checkpoint.
LoadedEnsemble load_models(const std::vector<std::string>& paths, TranslateEngine engine, EnsembleMode mode,
                           const c10::Device& device, const InferencePrecision& precision = {},
                           const InferencePrecision* int8_form = nullptr);

}  // namespace nmt
