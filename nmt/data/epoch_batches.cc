#include "nmt/data/epoch_batches.h"

#include <string>
#include <utility>

#include "nmt/core/error.h"

namespace nmt {

EpochBatches::EpochBatches(const ParallelCorpus& corpus, BatchingOptions options, std::int64_t max_epochs,
                           CorpusForEpoch corpus_for_epoch)
    : base_(corpus), options_(options), max_epochs_(max_epochs), corpus_for_epoch_(std::move(corpus_for_epoch)) {
  if (base_.size() == 0) throw DataError("cannot batch an empty corpus");
  start_epoch(0);  // validates the options against the corpus
}

EpochBatches::EpochBatches(const ParallelCorpus& corpus, BatchingOptions options, std::int64_t max_epochs,
                           CorpusForEpoch corpus_for_epoch, const BatchPosition& start)
    : base_(corpus), options_(options), max_epochs_(max_epochs), corpus_for_epoch_(std::move(corpus_for_epoch)) {
  if (base_.size() == 0) throw DataError("cannot batch an empty corpus");
  restore(start);
}

std::unique_ptr<ParallelCorpus> EpochBatches::make_corpus(std::int64_t epoch) const {
  return corpus_for_epoch_ ? corpus_for_epoch_(epoch) : nullptr;
}

void EpochBatches::start_epoch(std::int64_t epoch) {
  std::unique_ptr<ParallelCorpus> made = make_corpus(epoch);
  auto plan = plan_epoch(made ? *made : base_, options_, epoch);  // throws before anything changes
  epoch_corpus_ = std::move(made);
  fingerprint_ = corpus().fingerprint();
  plan_ = std::move(plan);
  plan_step_batches_ = options_.step_batches;
  epoch_ = epoch;
  next_ = 0;
}

bool EpochBatches::exhausted() const {
  return max_epochs_ > 0 && epoch_ >= max_epochs_ - 1 && next_ >= plan_.size();
}

std::vector<std::size_t> EpochBatches::next() {
  if (next_ >= plan_.size()) start_epoch(epoch_ + 1);  // and its corpus
  return plan_[next_++];
}

// Every rank takes every batch of the step in the same order (the plan and the epochs' corpora are
// the same everywhere) and makes only its own: one shared plan, sharded by position.
StepShare EpochBatches::take_step(std::int64_t count, int world, int rank) {
  StepShare share;
  for (std::int64_t k = 0; k < count && !exhausted(); ++k) {
    if (k > 0 && options_.step_batches > 1 && next_ >= plan_.size()) break;  // the epoch's last step
    const std::vector<std::size_t> indices = next();
    share.target_tokens += count_target_tokens(corpus(), indices);
    if (k % world == rank) share.batches.push_back(make_batch(corpus(), indices));
    ++share.taken;
  }
  return share;
}

BatchPosition EpochBatches::position() const {
  return {epoch_, static_cast<std::int64_t>(next_), options_.seed, options_.digest(), fingerprint_, plan_step_batches_};
}

void EpochBatches::restore(const BatchPosition& saved) {
  if (saved.seed != options_.seed) {
    throw DataError("batch position was saved with seed " + std::to_string(saved.seed) + ", the batches use seed " +
                    std::to_string(options_.seed));
  }
  if (saved.options_digest != options_.digest()) {
    throw DataError("batch position was saved with other batching options (max tokens, max sentences,"
                    " sort pool size or shuffle differ)");
  }
  if (saved.step_batches < 1) {
    throw DataError("batch position has step_batches " + std::to_string(saved.step_batches) + " (must be >= 1)");
  }
  if (saved.epoch < 0 || saved.batch < 0) throw DataError("batch position is negative");
  // Everything is made and checked before anything changes.
  std::unique_ptr<ParallelCorpus> made = make_corpus(saved.epoch);
  const ParallelCorpus& corpus = made ? *made : base_;
  const std::uint64_t fingerprint = corpus.fingerprint();
  if (saved.corpus_fingerprint != fingerprint) {
    throw DataError("batch position was saved for another corpus (fingerprint " +
                    std::to_string(saved.corpus_fingerprint) + ", this corpus " + std::to_string(fingerprint) + ")");
  }
  BatchingOptions saved_options = options_;
  saved_options.step_batches = saved.step_batches;
  auto plan = plan_epoch(corpus, saved_options, saved.epoch);
  if (static_cast<std::size_t>(saved.batch) > plan.size()) {
    throw DataError("batch position " + std::to_string(saved.batch) + " is past the end of epoch " +
                    std::to_string(saved.epoch) + " (" + std::to_string(plan.size()) + " batches)");
  }
  epoch_corpus_ = std::move(made);
  fingerprint_ = fingerprint;
  plan_ = std::move(plan);
  plan_step_batches_ = saved.step_batches;
  epoch_ = saved.epoch;
  next_ = static_cast<std::size_t>(saved.batch);
}

}  // namespace nmt
