// Greedy and beam search behind one face, chosen once from the options (beam size 1: greedy).
#pragma once

#include <ATen/core/Tensor.h>

#include <memory>
#include <vector>

#include "nmt/model/incremental_decoder.h"
#include "nmt/search/search_options.h"

namespace nmt {

class SearchStrategy {
 public:
  /// Greedy search for beam_size 1 (bit for bit what beam search with beam 1 gives, faster),
  /// beam search otherwise. The options are validated by the caller.
  static std::unique_ptr<const SearchStrategy> make(const SearchOptions& options);
  virtual ~SearchStrategy() = default;

  /// source [batch, src_len] (x_1 .. x_n EOS, padded), source_lengths [batch] on the CPU.
  /// Per row, in row order: the n-best list, best first (one hypothesis for greedy search).
  virtual std::vector<std::vector<Hypothesis>> search(const IncrementalDecoder& model, const at::Tensor& source,
                                                      const at::Tensor& source_lengths) const = 0;
};

}  // namespace nmt
