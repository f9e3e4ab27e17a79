// A padded tensor batch of sentence pairs, ready for the model.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "nmt/data/parallel_corpus.h"

namespace nmt {

/// Rows are ordered by source length, longest first (what packed RNN sequences want); `indices`
/// maps each row back to the corpus. Padding uses SpecialIds::kPad; masks are true at real tokens.
struct Batch {
  at::Tensor source;          // [batch, src_len] int64: x_1 .. x_n EOS, padded
  at::Tensor source_lengths;  // [batch] int64: n + 1 (on the CPU, as packing requires)
  at::Tensor source_mask;     // [batch, src_len] bool
  at::Tensor target_in;       // [batch, tgt_len] int64: BOS y_1 .. y_m, padded (decoder input)
  at::Tensor target_out;      // [batch, tgt_len] int64: y_1 .. y_m EOS, padded (labels)
  at::Tensor target_lengths;  // [batch] int64: m + 1
  at::Tensor target_mask;     // [batch, tgt_len] bool
  std::vector<std::size_t> indices;  // corpus index of each row
  std::int64_t source_tokens = 0;    // real tokens, EOS included
  std::int64_t target_tokens = 0;    // real labels, EOS included

  std::int64_t size() const { return static_cast<std::int64_t>(indices.size()); }
  /// The same batch with its tensors on `device` (source_lengths stays on the CPU).
  Batch to(const c10::Device& device) const;
};

/// Builds the tensors of the pairs `indices` of `corpus` (on the CPU).
Batch make_batch(const ParallelCorpus& corpus, const std::vector<std::size_t>& indices);

/// make_batch(corpus, indices).target_tokens without building the batch: the labels, EOS included.
std::int64_t count_target_tokens(const ParallelCorpus& corpus, const std::vector<std::size_t>& indices);

}  // namespace nmt
