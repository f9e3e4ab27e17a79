// The TorchScript program every checkpoint carries (docs/checkpoints.md, "Methods"): encode, step,
// score, greedy and beam_search over the checkpoint's own parameters, so that torch.jit.load(path)
// in Python or torch::jit::load in C++ gives a model that translates, ids in and ids out.
#pragma once

#include <string>

#include "nmt/model/model_config.h"

namespace nmt {

/// The methods' source for a model of `config`: the files of nmt/model/script/ (embedded in the
/// library at build time) that its attention, decoder style and bridge need, and accessors
/// generated for its layers and its shared or tied matrices. To be compiled with
/// torch::jit::Module::define on a module whose submodule `model` holds the parameters and whose
/// int attributes pad_id, bos_id, eos_id, target_vocab_size and has_attention exist.
std::string checkpoint_program(const ModelConfig& config);

}  // namespace nmt
