// What a training run reads: its subword models (loaded, or trained on the training data when
// missing) and its training corpus, filtered, with the text kept for subword sampling.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nmt/data/epoch_batches.h"
#include "nmt/data/parallel_corpus.h"
#include "nmt/data/tokenizer.h"
#include "nmt/data/tokenizer_training.h"
#include "nmt/train/train_config.h"

namespace nmt {

/// data.source-spm (and data.target-spm, empty: joint) loaded, or trained on the training data
/// with data.spm-type, data.vocab-size and the run's seed when a file is missing.
TokenizerPair load_or_train_tokenizers(const TrainConfig& config);

class TrainingCorpus {
 public:
  /// Reads data.train-source and data.train-target, segments them with the tokenizers and drops
  /// the pairs the length filters refuse; logs the counts. DataError when no pair is left. With
  /// subword sampling, keeps the kept pairs' text to segment anew per epoch. `config` and the
  /// tokenizers must outlive this object (the sampling reads them).
  TrainingCorpus(const TrainConfig& config, const Tokenizer& source_tokenizer, const Tokenizer& target_tokenizer);
  TrainingCorpus(const TrainingCorpus&) = delete;  // corpus_for_epoch() holds `this`
  TrainingCorpus& operator=(const TrainingCorpus&) = delete;

  /// The best segmentation of the kept pairs.
  const ParallelCorpus& corpus() const { return *corpus_; }
  /// The corpus of each epoch: sampled segmentations (train.sampling-alpha), or unset without.
  EpochBatches::CorpusForEpoch corpus_for_epoch() const;

 private:
  /// The kept pairs segmented anew with the epoch's seed; the best segmentation where a sample
  /// would break data.max-length.
  std::unique_ptr<ParallelCorpus> sampled_corpus(std::int64_t epoch) const;

  const TrainConfig& config_;
  const Tokenizer& source_tokenizer_;
  const Tokenizer& target_tokenizer_;
  std::unique_ptr<ParallelCorpus> corpus_;
  std::vector<std::string> source_texts_, target_texts_;  // kept pairs' text, for subword sampling
};

}  // namespace nmt
