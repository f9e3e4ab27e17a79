// Validation during training: dev loss and perplexity under teacher forcing, and BLEU of the dev
// set's translations (sacreBLEU's defaults) by greedy search or, with valid.beam > 1, beam search.
#pragma once

#include <c10/core/Device.h>

#include <memory>
#include <string>
#include <vector>

#include "nmt/data/attention_record.h"
#include "nmt/data/parallel_corpus.h"
#include "nmt/data/tokenizer.h"
#include "nmt/model/seq2seq.h"
#include "nmt/train/train_config.h"
#include "nmt/train/training_state.h"

namespace nmt {

struct ValidationResult {
  double loss = 0;        // label-smoothed loss per target token
  double perplexity = 0;  // exp(mean -log p) per target token
  double bleu = 0;
  std::string bleu_text;  // sacreBLEU-style summary line
  std::vector<std::string> sources, references, hypotheses;  // the logged examples
  /// The examples' attention (the validation's search, each sentence translated alone), what nmt-translate
  /// --attention-output would write; empty without attention or with valid.attention-maps none.
  std::vector<AttentionRecord> example_attention;

  /// The value the config's metric names, and whether `other` is better than `best`.
  static double metric(const ValidationResult& result, ValidationMetric metric);
  static bool better(double candidate, double best, ValidationMetric metric);
};

/// Counts a validation's `value` in the run's history (validations, best_metric, bad_validations of
/// `state`) and returns whether it is the new best. A non-finite value is never the best; the best
/// stays NaN until a finite value comes.
bool record_validation(double value, ValidationMetric metric, TrainingState& state);

class Validator {
 public:
  /// Reads the dev files (throws IoError/DataError naming them).
  Validator(const DataOptions& data, const ValidationOptions& options, double label_smoothing,
            std::int64_t max_tokens, const Tokenizer& source_tokenizer, const Tokenizer& target_tokenizer);

  /// Runs the model in evaluation mode (and leaves it in the mode it found).
  ValidationResult run(Seq2Seq& model, const c10::Device& device) const;
  std::size_t size() const { return sources_.size(); }

 private:
  ValidationOptions options_;
  double label_smoothing_;
  std::int64_t max_tokens_;
  Tokenizer source_tokenizer_, target_tokenizer_;
  std::string tag_;  // data.default-tag, put before every dev source ("": none)
  std::unique_ptr<ParallelCorpus> corpus_;
  std::vector<std::string> sources_, references_;  // for BLEU (up to max_sentences)
};

}  // namespace nmt
