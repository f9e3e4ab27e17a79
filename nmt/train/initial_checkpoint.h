// nmt-train --init-from CHECKPOINT (docs/training.md, "Fine-tuning"): a new run that starts from a
// trained model's parameters, with its architecture and subword models, and a fresh optimizer and
// schedule, usually on other data (a domain to adapt to).
#pragma once

#include <string>
#include <vector>

#include "nmt/model/checkpoint.h"
#include "nmt/train/train_config.h"

namespace nmt {

/// The checkpoint a run with init-from takes its architecture and subword models from: the run
/// directory's latest step checkpoint when resuming (the run may outlive the file it started
/// from), else init-from itself.
std::string initial_checkpoint_path(const TrainConfig& config);

/// Sets config.model to the architecture of initial_checkpoint_path(config). `explicitly_set`: the
/// option keys the user gave (flags or config file); a [model] key among them whose value differs
/// from the checkpoint's is a ConfigError naming it and both values, but for model.dropout, which a
/// fine-tuning run may change (unset, the checkpoint's is kept). data.source-spm or
/// data.target-spm, when given, must name the checkpoint's subword models (same bytes). No-op
/// without init-from. Throws what load_checkpoint throws for the file.
void adopt_initial_checkpoint(TrainConfig& config, const std::vector<std::string>& explicitly_set);

}  // namespace nmt
