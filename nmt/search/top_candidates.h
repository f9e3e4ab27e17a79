// The best candidates of a few adjacent rows of log-probabilities, as beam search ranks a
// sentence's live hypotheses and greedy search a sentence's one (docs/search.md). CPU, float.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace nmt {

/// Candidates best first: (score, flat index j = row * vocab + token).
using Ranked = std::vector<std::pair<float, std::int64_t>>;

/// The best `count` of the rows x vocab candidates of log_probs [rows, vocab] (contiguous), candidate
/// j = row * vocab + w scoring offset[row] + log_probs[j] in float (a hypothesis' r plus log p,
/// as the tensor sum computes it), best first; equal values in index order; NaN never ranks.
Ranked top_of_rows(const float* log_probs, const float* offset, std::int64_t rows, std::int64_t vocab,
                   std::int64_t count);

}  // namespace nmt
