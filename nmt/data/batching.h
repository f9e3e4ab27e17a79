// Token-budget batching with length bucketing, seeded shuffling and a resumable position.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "nmt/data/parallel_corpus.h"

namespace nmt {

/// A batch's size in tokens counts padding: rows x the longer of its padded source length
/// (subwords + EOS) and padded target length (subwords + 1 for BOS/EOS), i.e. the element count
/// of the largest tensor the batch becomes.
struct BatchingOptions {
  std::int64_t max_tokens = 2000;     // budget per batch, padding included
  std::int64_t max_sentences = 0;     // at most this many pairs per batch; 0: no limit
  std::int64_t sort_pool_size = 0;    // pairs sorted by length together before cutting batches;
                                      // 0: the whole epoch (least padding)
  bool shuffle = true;                // shuffle pairs before bucketing and batches after
  std::uint64_t seed = 1;             // with the epoch number, fixes the order completely
  /// Batches one optimizer step takes (ranks x accumulate). Above 1, the shuffle after bucketing
  /// moves runs of this many neighbouring batches (neighbours in length), so the batches of a step
  /// cost alike and no rank waits long for another's longer batch; the epoch ends with the
  /// remainder (plan size mod step_batches batches), and a step never crosses an epoch's end
  /// (EpochBatches::take_step). 1: every batch is shuffled on its own.
  std::int64_t step_batches = 1;
  void validate() const;              // throws ConfigError naming the option
  /// Hash of every option but the seed and step_batches (a BatchPosition carries that itself):
  /// equal digests and step_batches give equal batch plans for one seed.
  std::uint64_t digest() const;
};

/// Cost of one pair in the budget above: max(source + 1, target + 1).
std::int64_t pair_tokens(const ParallelCorpus& corpus, std::size_t index);

/// The batches of one epoch, as corpus indices. Deterministic in (corpus, options, epoch), and the
/// same on every platform (the shuffle uses the toolkit's own generator, not std::shuffle).
/// Every pair appears exactly once; no batch exceeds options.max_tokens or options.max_sentences.
/// With options.step_batches = k > 1, positions [i k, i k + k) hold k batches cut next to each other.
/// Throws ConfigError when a single pair exceeds the token budget (naming its line and size).
std::vector<std::vector<std::size_t>> plan_epoch(const ParallelCorpus& corpus,
                                                 const BatchingOptions& options, std::int64_t epoch);

/// Where a walk through the epochs stands (EpochBatches, epoch_batches.h): the next batch is batch
/// `batch` of epoch `epoch` (0-based).
/// Carries the seed, a digest of the other batching options and the corpus fingerprint, so that it
/// is never restored onto other data or another batch plan.
struct BatchPosition {
  std::int64_t epoch = 0;
  std::int64_t batch = 0;
  std::uint64_t seed = 0;
  std::uint64_t options_digest = 0;
  std::uint64_t corpus_fingerprint = 0;
  std::int64_t step_batches = 1;  // the epoch's plan moved runs of this many batches (BatchingOptions)

  /// A position saved before step_batches existed (nmt 0.1) reads as 1, the plan it was made with.
  std::string to_json() const;
  static BatchPosition from_json(const std::string& json);  // throws DataError
  bool operator==(const BatchPosition& other) const;
};

}  // namespace nmt
