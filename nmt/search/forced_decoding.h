// Forced decoding: the log-probability a model gives to known targets, step by step through the
// same interface and in the same float32 sums as the searches (so a translation's score and the
// forced score of its text agree).
#pragma once

#include <ATen/core/Tensor.h>

#include <vector>

#include "nmt/model/incremental_decoder.h"

namespace nmt {

/// [rows, steps] int64 on the CPU: targets[i] (ids, no EOS) + EOS, then padding; steps = the
/// longest target + 1.
at::Tensor make_target_batch(const std::vector<const std::vector<int>*>& targets);

/// Per row, sum over y_1 .. y_m EOS of log p(y_t | y_<t, x) in float32, in step order. source
/// [rows, src_len] and target (make_target_batch) on the model's device, source_lengths [rows] on
/// the CPU. Returns [rows] float on the CPU.
at::Tensor forced_log_probs(const IncrementalDecoder& model, const at::Tensor& source, const at::Tensor& source_lengths,
                            const at::Tensor& target);

}  // namespace nmt
