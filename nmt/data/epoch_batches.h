// The batches of successive training epochs over a corpus that may be made anew for each epoch
// (subword sampling re-segments the pairs every epoch). Every rank of a data-parallel group walks
// the same batches; each step, a rank makes its share of them (take_step).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "nmt/data/batch.h"
#include "nmt/data/batching.h"
#include "nmt/data/parallel_corpus.h"

namespace nmt {

/// One optimizer step's batches as one rank of `world` sees them.
struct StepShare {
  std::vector<Batch> batches;      // this rank's: the step's batches at positions rank, rank + world, ...
  std::int64_t target_tokens = 0;  // target tokens of all the step's batches (every rank's)
  std::int64_t taken = 0;          // batches the step took: fewer than asked at the end of the last epoch
};

class EpochBatches {
 public:
  /// The corpus of an epoch (made from the epoch number alone, so every rank and every resume gets
  /// the same one). Unset: the base corpus every epoch.
  using CorpusForEpoch = std::function<std::unique_ptr<ParallelCorpus>(std::int64_t epoch)>;

  /// `corpus` must outlive this. max_epochs: after the last batch of epoch max_epochs - 1 the
  /// source is exhausted; 0: endless. Starts epoch 0. Throws ConfigError as plan_epoch does,
  /// DataError for an empty corpus.
  EpochBatches(const ParallelCorpus& corpus, BatchingOptions options, std::int64_t max_epochs = 0,
               CorpusForEpoch corpus_for_epoch = nullptr);
  EpochBatches(ParallelCorpus&& corpus, BatchingOptions options, std::int64_t max_epochs = 0,
               CorpusForEpoch corpus_for_epoch = nullptr) = delete;  // would dangle
  /// As above, but starting at `start` (as restore() would, without making epoch 0 first: with
  /// subword sampling an epoch's corpus takes seconds to make).
  EpochBatches(const ParallelCorpus& corpus, BatchingOptions options, std::int64_t max_epochs,
               CorpusForEpoch corpus_for_epoch, const BatchPosition& start);

  /// The next batch (indices into corpus()); starts the next epoch (and its corpus) first when all
  /// of this one's are taken. Use exhausted() to stop at max_epochs.
  std::vector<std::size_t> next();

  /// The next `count` batches (fewer when the source runs out), rank `rank` of `world` making the
  /// ones at positions rank, rank + world, ... With options.step_batches > 1 (count should equal
  /// it) a step ends at its epoch's end, so that each step of the next epoch takes one run of
  /// neighbouring batches (BatchingOptions); with 1, an epoch that ends within the step is followed
  /// by the next one (its corpus made first).
  StepShare take_step(std::int64_t count, int world, int rank);

  /// The last batch of the last allowed epoch has been taken.
  bool exhausted() const;
  /// The next batch is batch `batch` of epoch `epoch`; `batch` equals the epoch's batch count once
  /// all are taken (the next epoch starts when one more is asked for).
  BatchPosition position() const;
  /// Continues exactly at `saved`: makes that epoch's corpus and plan, the plan with the saved
  /// step_batches (a run resumed with another number of ranks or accumulate keeps its epoch's
  /// plan; the next epochs use options.step_batches). Throws DataError, and stays as it was, when
  /// the position belongs to another corpus, seed or batching options, or lies past its epoch's end.
  void restore(const BatchPosition& saved);
  std::int64_t epoch() const { return epoch_; }
  std::size_t batches_in_epoch() const { return plan_.size(); }
  /// The current epoch's corpus (the indices of its batches point into it).
  const ParallelCorpus& corpus() const { return epoch_corpus_ ? *epoch_corpus_ : base_; }
  const BatchingOptions& options() const { return options_; }

 private:
  void start_epoch(std::int64_t epoch);
  /// The corpus epoch `epoch` batches (null: base_).
  std::unique_ptr<ParallelCorpus> make_corpus(std::int64_t epoch) const;

  const ParallelCorpus& base_;
  BatchingOptions options_;
  std::int64_t max_epochs_;
  CorpusForEpoch corpus_for_epoch_;
  std::unique_ptr<ParallelCorpus> epoch_corpus_;  // null: base_
  std::uint64_t fingerprint_ = 0;                 // corpus().fingerprint(), computed once per epoch
  std::int64_t epoch_ = 0;
  std::size_t next_ = 0;
  std::int64_t plan_step_batches_ = 1;  // the step_batches plan_ was made with
  std::vector<std::vector<std::size_t>> plan_;
};

}  // namespace nmt
