// Checkpoint averaging (nmt-checkpoint average, docs/checkpoints.md "Averaging"): the element-wise
// mean of the parameters of N checkpoints of one model, e.g. the last steps of a run, which usually
// translates better than any one of them.
#pragma once

#include <string>
#include <vector>

#include "nmt/model/checkpoint.h"

namespace nmt {

/// Why `b` cannot be averaged (or ensembled) with `a`: the first architecture field that differs
/// ("model.attention: general in a.pt, dot in b.pt"), or a different source or target subword
/// model; empty when they fit. model.dropout may differ (it does not change what a model computes
/// at inference). `sides`: compare the source subword models too (averaging), or the target's only.
std::string checkpoint_mismatch(const Checkpoint& a, const std::string& a_path, const Checkpoint& b,
                                const std::string& b_path, bool with_source = true);

/// The mean of `inputs`' parameters (at least one file), each summed in float64 in the order given
/// and divided by N once, then rounded to float32: N copies of one checkpoint give it back bit for
/// bit. Written to `output` atomically as a normal checkpoint with the first input's subword models
/// and training configuration (prefixed by a TOML comment naming the inputs). Refuses an existing
/// `output` unless `replace` (it may be one of the inputs: all are read first), and inputs whose
/// architectures or subword models differ (ConfigError naming the field and both files).
void average_checkpoints(const std::vector<std::string>& inputs, const std::string& output, bool replace = false);

}  // namespace nmt
