// nmt-train --init-from CHECKPOINT (docs/training.md, "Fine-tuning"): a new run that starts from a
// trained model's parameters, with its architecture and subword models, and a fresh optimizer and
// schedule, usually on other data (a domain to adapt to).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "nmt/model/checkpoint.h"
#include "nmt/train/train_config.h"

namespace nmt {

/// The checkpoint a run with init-from takes its architecture and subword models from: the run
/// directory's latest step checkpoint when resuming (the run may outlive the file it started
/// from), else init-from itself.
std::string initial_checkpoint_path(const TrainConfig& config);

/// The one rule of a fine-tuning run's architecture: the checkpoint's model, but for the dropout,
/// which the run may change. `checkpoint` with `dropout`.
ModelConfig fine_tuning_model(ModelConfig checkpoint, double dropout);

/// Reads the checkpoint of initial_checkpoint_path(config) and sets config.model to its
/// architecture (fine_tuning_model). `explicitly_set`: the option keys the user gave (flags or
/// config file); a [model] key among them whose value differs from the checkpoint's is a
/// ConfigError naming it and both values (model.dropout given is kept; unset, the checkpoint's is).
/// data.source-spm or data.target-spm, when given, must name the checkpoint's subword models
/// (same bytes). Returns the checkpoint read, for the Trainer to take its subword models and
/// parameters from without reading the file again; null without init-from. Throws what
/// load_checkpoint throws for the file.
std::shared_ptr<Checkpoint> adopt_initial_checkpoint(TrainConfig& config,
                                                     const std::vector<std::string>& explicitly_set);

}  // namespace nmt
