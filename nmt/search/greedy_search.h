// Greedy search: the most probable token at each step, for a whole batch at once.
#pragma once

#include <ATen/core/Tensor.h>

#include <vector>

#include "nmt/model/incremental_decoder.h"
#include "nmt/search/search_options.h"

namespace nmt {

/// source [batch, src_len] (x_1 .. x_n EOS, padded), source_lengths [batch] (n + 1). Sentences
/// leave the batch as soon as they finish, so the cost follows the sentences still running.
/// Honours max/min length and no_repeat_ngram; beam_size, n_best and the penalties do not apply
/// (score = log_prob). Equals beam_search with beam 1, lp none and beta 0, bit for bit.
/// Returns one hypothesis per row, in row order.
std::vector<Hypothesis> greedy_search(const IncrementalDecoder& model, const at::Tensor& source,
                                      const at::Tensor& source_lengths, const SearchOptions& options);

}  // namespace nmt
