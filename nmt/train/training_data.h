// What a training run reads: its subword models (loaded, or trained on the training data when
// missing) and its training corpus, filtered, with the text kept for subword sampling: one pair of
// files (data.train-source/-target), or several corpora (data.corpus) with tags, reversed pairs and
// weights that share each epoch out (nmt/data/corpus_mixture.h).
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
/// with data.spm-type, data.vocab-size and the run's seed when a file is missing; the corpora's
/// tags become user-defined symbols of the (source or joint) model it trains. ConfigError when a
/// tag is not a user-defined symbol of a source model it loads (check_corpus_tags).
TokenizerPair load_or_train_tokenizers(const TrainConfig& config);

/// IoError "NAME: cannot open PATH: REASON" unless every training file, and with `dev` the dev
/// files (rank 0 alone reads them), opens for reading; then DataError (ConfigError for a TSV column
/// its header lacks) "NAME: ..." unless each pair of files has one number of lines, each TSV's rows
/// the header's width, and all of it valid UTF-8 (one pass over the regular files: a FIFO can be
/// read once only, and is checked as it loads; ConfigError for one when a subword model is to be
/// trained, which reads the data once more). nmt-train checks before it makes a run directory
/// or trains a subword model, so that bad data leaves nothing behind.
void check_data_files(const TrainConfig& config, bool dev);

/// ConfigError unless every tag of data.corpus (and data.default-tag) is a user-defined symbol of
/// `source_tokenizer`, which keeps it one piece whatever the text around it.
void check_corpus_tags(const TrainConfig& config, const Tokenizer& source_tokenizer);

class TrainingCorpus {
 public:
  /// Reads data.train-source and data.train-target, or each corpus of data.corpus, segments them
  /// with the tokenizers and drops the pairs the length filters refuse (a tag is not counted in a
  /// source's length); logs the counts. DataError when no pair (of a corpus) is left. With subword
  /// sampling, keeps the kept pairs' text to segment anew per epoch. `config` and the tokenizers
  /// must outlive this object (the sampling reads them).
  TrainingCorpus(const TrainConfig& config, const Tokenizer& source_tokenizer, const Tokenizer& target_tokenizer);
  TrainingCorpus(const TrainingCorpus&) = delete;  // corpus_for_epoch() holds `this`
  TrainingCorpus& operator=(const TrainingCorpus&) = delete;

  /// The best segmentation of the kept pairs, every corpus's (and its reversed pairs') laid end
  /// to end, tags in place.
  const ParallelCorpus& corpus() const { return *corpus_; }
  /// The corpus of each epoch: the corpora's shares (several corpora) of sampled segmentations
  /// (train.sampling-alpha), or unset with neither.
  EpochBatches::CorpusForEpoch corpus_for_epoch() const;
  /// What every rank of a group must agree on: corpus()'s fingerprint, and with several corpora
  /// where each stream begins (two splits of the same pairs make other epochs).
  std::uint64_t fingerprint() const;
  /// The ids of the corpora's tags (never dropped by word dropout); empty without tags.
  const std::vector<int>& tag_ids() const { return tag_ids_; }

 private:
  // The pairs of one corpus in one direction: corpus()'s pairs [first, first + size).
  struct Stream {
    std::size_t first = 0, size = 0;
    double weight = 1;
    int tag = -1;           // id put before each source, or -1
    bool reversed = false;  // target -> source
    std::vector<std::string> source_texts, target_texts;  // kept pairs' text, for subword sampling
  };

  /// Loads corpus `index` of data.corpus as one stream, or two with its reversed pairs.
  void load_corpus(std::size_t index, std::vector<std::vector<int>>& sources, std::vector<std::vector<int>>& targets);
  /// Every stream's kept pairs segmented anew with the epoch's seed; the best segmentation where a
  /// sample would break data.max-length.
  std::unique_ptr<ParallelCorpus> sampled_corpus(std::int64_t epoch) const;
  /// The epoch's pairs drawn by the corpora's weights from `segmented` (corpus() or a sample).
  std::unique_ptr<ParallelCorpus> mixed_corpus(const ParallelCorpus& segmented, std::int64_t epoch) const;

  const TrainConfig& config_;
  const Tokenizer& source_tokenizer_;
  const Tokenizer& target_tokenizer_;
  std::unique_ptr<ParallelCorpus> corpus_;
  std::vector<Stream> streams_;
  std::vector<int> tag_ids_;
};

}  // namespace nmt
