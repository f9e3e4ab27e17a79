// Beam search over a batch (docs/search.md; the algorithm is specified step by step there).
// Every sentence keeps up to k live hypotheses; all live hypotheses of all sentences advance
// together as the rows of one decoder batch, and a sentence leaves the batch once it is done.
#pragma once

#include <ATen/core/Tensor.h>

#include <vector>

#include "nmt/model/incremental_decoder.h"
#include "nmt/search/search_options.h"

namespace nmt {

/// source [batch, src_len] int64 (x_1 .. x_n EOS, padded) on the model's device, source_lengths
/// [batch] int64 (n + 1). Returns, per row in row order, up to n_best hypotheses sorted by final
/// score: finished ones first, then (only if fewer than n_best finished) those stopped at the
/// length limit. Fewer than n_best only when the constraints forbid every continuation.
/// Each sentence's result depends on that sentence alone, not on its neighbours in the batch
/// (given a model whose rows are batch invariant; see docs/search.md).
std::vector<std::vector<Hypothesis>> beam_search(const IncrementalDecoder& model, const at::Tensor& source,
                                                 const at::Tensor& source_lengths, const SearchOptions& options);

}  // namespace nmt
