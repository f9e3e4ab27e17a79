// Several training corpora in one epoch, each with its share of the samples (data.corpus's
// `weight`, OpenNMT-py's corpus weights as shares of an epoch rather than of a round): an epoch
// draws as many pairs as the corpora hold together, and corpus s gets w_s / sum(w) of them,
// up-sampled (every pair repeated, the rest a seeded draw) or down-sampled (a seeded draw).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nmt {

struct MixtureCorpus {
  std::size_t pairs = 0;  // > 0
  double weight = 1;      // > 0, relative to the others'
};

/// Pairs each corpus gives one epoch: the epoch has sum(pairs) of them, shared in proportion to
/// the weights by largest remainder (floor(total * w_s / W), and one more for the largest
/// fractions, ties to the earlier corpus), so that the quotas sum to the total exactly.
/// Throws ConfigError for an empty list, a corpus without pairs or a weight that is not > 0.
std::vector<std::size_t> mixture_quotas(const std::vector<MixtureCorpus>& corpora);

/// The pairs of epoch `epoch`, as indices into the corpora laid end to end (corpus s's pair i is
/// sum(pairs of corpora before s) + i), ascending: each of a corpus's pairs quota / pairs times,
/// and quota mod pairs distinct ones more, drawn with (seed, epoch, s) alone, so that every rank
/// and every resume gets the same epoch. With equal weights proportional to the sizes (one corpus,
/// say), every pair exactly once.
std::vector<std::size_t> mixture_epoch(const std::vector<MixtureCorpus>& corpora, std::uint64_t seed,
                                       std::int64_t epoch);

}  // namespace nmt
