// Batches of source sentences for translation and scoring: sorted longest first, cut by a token
// budget, padded to a multiple of 16 positions (beside batching.h, which plans training epochs).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace nmt {

/// Source positions per batch are rounded up to a multiple of this: ATen's softmax sums a row of
/// fewer than 16 values in another order than a longer, padded one, and a sentence's attention
/// must not depend on its batch (docs/search.md, "Batch invariance").
constexpr std::int64_t kSourcePadMultiple = 16;

/// Indices of the sentences, longest first (ties keep input order); those of length 0 only when
/// keep_empty.
std::vector<std::size_t> longest_first(const std::vector<std::int64_t>& lengths, bool keep_empty);

/// Contiguous runs [start, end) of `order` (indices sorted longest first) that fit the limits:
/// rows x (longest + 1) x cost_per_row <= max_tokens (a batch holds at least one sentence), and
/// rows <= max_sentences when that is > 0.
std::vector<std::pair<std::size_t, std::size_t>> plan_source_batches(const std::vector<std::size_t>& order,
                                                                     const std::vector<std::int64_t>& lengths,
                                                                     std::int64_t max_tokens,
                                                                     std::int64_t cost_per_row,
                                                                     std::int64_t max_sentences);

struct SourceBatch {
  at::Tensor source;   // [rows, width] int64: ids + EOS, then padding; width rounded up to kSourcePadMultiple
  at::Tensor lengths;  // [rows] int64: subwords + EOS
};

/// The sentences ids[order[start]] .. ids[order[end - 1]] (without EOS) as one batch.
SourceBatch make_source_batch(const std::vector<std::vector<int>>& ids, const std::vector<std::size_t>& order,
                              std::size_t start, std::size_t end);

}  // namespace nmt
