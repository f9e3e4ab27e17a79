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
#include "nmt/translate/translate_job.h"

namespace nmt {

struct LoadedModel {
  std::unique_ptr<const IncrementalDecoder> model;
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
  const IncrementalDecoder& decoder() const {
    return ensemble ? static_cast<const IncrementalDecoder&>(*ensemble) : *members.front().model;
  }
};

/// ConfigError when the members' target subword models differ (naming both files).
LoadedEnsemble load_models(const std::vector<std::string>& paths, TranslateEngine engine, EnsembleMode mode,
                           const c10::Device& device);

}  // namespace nmt
