#include "nmt/kernels/top_candidates.h"

#include <algorithm>
#include <limits>

namespace nmt {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// The largest r + values[i] for i < size, NaN ignored (as `v > worst` ignores it below).
// Sixteen lanes so that the loop vectorises; compiled for AVX2 and the baseline, chosen at load time.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
[[gnu::target_clones("avx2", "default")]]
#endif
float max_of_sums(const float* values, float r, std::int64_t size) {
  constexpr std::int64_t kLanes = 16;
  float lanes[kLanes];
  for (float& lane : lanes) lane = kNegInf;
  std::int64_t i = 0;
  for (; i + kLanes <= size; i += kLanes) {
    for (std::int64_t l = 0; l < kLanes; ++l) {
      const float v = r + values[i + l];
      lanes[l] = v > lanes[l] ? v : lanes[l];
    }
  }
  float best = kNegInf;
  for (; i < size; ++i) best = r + values[i] > best ? r + values[i] : best;
  for (const float lane : lanes) best = lane > best ? lane : best;
  return best;
}

// Offers the candidate (v, index) to `best`, kept best first and at most `count` long: larger values
// first, equal values in index order (so, offered in index order, a tie loses), NaN never ranking.
// `worst` is the last kept value once `best` holds something.
inline void offer(Ranked& best, std::int64_t count, float& worst, float v, std::int64_t index) {
  const bool full = static_cast<std::int64_t>(best.size()) == count;
  if (full ? !(v > worst) : v != v) return;
  const auto before = [](const std::pair<float, std::int64_t>& a, const std::pair<float, std::int64_t>& b) {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  };
  const std::pair<float, std::int64_t> candidate{v, index};
  best.insert(std::upper_bound(best.begin(), best.end(), candidate, before), candidate);
  if (static_cast<std::int64_t>(best.size()) > count) best.pop_back();
  worst = best.back().first;
}

// Each value is compared with the worst of the current best and the few that beat it are inserted:
// no [rows, V] sum written, nothing sorted but the `count` kept. A block of values whose largest
// sum cannot beat the worst kept one is passed over: on one comparison when its largest value is
// known (logits: normalisers and block_maxima both given), else after one vectorised look (written
// log-probabilities: both nullptr, ranked with normaliser 0, r + (x - 0) being r + x bit for bit).
Ranked rank_rows(const float* values, const float* normalisers, const float* block_maxima, const float* offset,
                 std::int64_t rows, std::int64_t vocab, std::int64_t count) {
  const std::int64_t blocks = (vocab + kRankingBlock - 1) / kRankingBlock;
  Ranked best;
  best.reserve(static_cast<std::size_t>(count) + 1);
  float worst = 0;
  for (std::int64_t row = 0; row < rows; ++row) {
    const float* x = values + row * vocab;
    const float r = offset[row], n = normalisers != nullptr ? normalisers[row] : 0.0F;
    for (std::int64_t b = 0; b < blocks; ++b) {
      const std::int64_t block = b * kRankingBlock, end = std::min(vocab, block + kRankingBlock);
      if (static_cast<std::int64_t>(best.size()) == count) {
        const float largest = block_maxima != nullptr ? r + (block_maxima[row * blocks + b] - n)
                                                      : max_of_sums(x + block, r, end - block);
        if (!(largest > worst)) continue;
      }
      for (std::int64_t w = block; w < end; ++w) offer(best, count, worst, r + (x[w] - n), row * vocab + w);
    }
  }
  return best;
}

}  // namespace

Ranked top_of_rows(const float* log_probs, const float* offset, std::int64_t rows, std::int64_t vocab,
                   std::int64_t count) {
  return rank_rows(log_probs, nullptr, nullptr, offset, rows, vocab, count);
}

Ranked top_of_rows(const float* logits, const float* normalisers, const float* block_maxima, const float* offset,
                   std::int64_t rows, std::int64_t vocab, std::int64_t count) {
  return rank_rows(logits, normalisers, block_maxima, offset, rows, vocab, count);
}

bool top_of_listed_rows(const std::vector<ListedRow>& rows, const std::int64_t* piece, const float* offset,
                        std::int64_t vocab, std::int64_t count, Ranked& best) {
  best.clear();
  best.reserve(static_cast<std::size_t>(count) + 1);
  float worst = 0;
  for (std::size_t row = 0; row < rows.size(); ++row) {
    const std::vector<std::int64_t>& positions = *rows[row].positions;
    const float r = offset[row];
    for (std::size_t c = 0; c < positions.size(); ++c) {  // increasing pieces: index order
      offer(best, count, worst, r + rows[row].values[c], static_cast<std::int64_t>(row) * vocab + piece[positions[c]]);
    }
  }
  // Every candidate off the lists is r + (-inf): -inf or NaN. They cannot enter a full list whose
  // worst value is above -inf; anywhere else they could (ahead of a listed -inf by index).
  return static_cast<std::int64_t>(best.size()) == count && best.back().first > kNegInf;
}

}  // namespace nmt
