// The best candidates of a few adjacent rows of log-probabilities (written, or logits with their
// normalisers), as beam search ranks a sentence's live hypotheses and greedy search a sentence's one
// (docs/search.md). CPU, float.
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

/// The blocks of values the ranking looks at once: a block whose largest sum cannot enter a full
/// list is passed over.
constexpr std::int64_t kRankingBlock = 128;

/// top_of_rows over the log-softmax of logits [rows, vocab] without writing it: candidate j scores
/// offset[row] + (logits[j] - normalisers[row]), the bits of log_softmax_last's values ranked by
/// the overload above. block_maxima [rows, ceil(vocab / kRankingBlock)]: the largest logit of each
/// block (NaN ignored), so a block is passed over on one comparison, r + (max - N) (r + (x - N) never
/// decreases as x grows). Both from log_softmax_normalisers (kernels.h).
Ranked top_of_rows(const float* logits, const float* normalisers, const float* block_maxima, const float* offset,
                   std::int64_t rows, std::int64_t vocab, std::int64_t count);

/// One row of a shortlist's step as ranked: its log-probabilities at its list's pieces (which
/// increase with the positions), -inf at every other piece.
struct ListedRow {
  const float* values;                         // [positions->size()]
  const std::vector<std::int64_t>* positions;  // increasing positions in `piece` (the batch's pieces)
};

/// top_of_rows over the rows as written ([rows, vocab], -inf off the lists) without writing them:
/// the lists' candidates alone, when they decide it: `count` of them rank above -inf. Otherwise
/// (short lists, or values of -inf or NaN) the -inf off the lists could enter, and it returns false
/// (`best` unspecified).
bool top_of_listed_rows(const std::vector<ListedRow>& rows, const std::int64_t* piece, const float* offset,
                        std::int64_t vocab, std::int64_t count, Ranked& best);

}  // namespace nmt
