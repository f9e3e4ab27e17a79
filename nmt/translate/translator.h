// Translating text: tokenize, batch by length (data/source_batching.h), search (search/search_strategy.h)
// on worker threads (core/worker_pool.h), restore the input order, replace unknown pieces
// (unknown_replacement.h), detokenize. Also scoring given targets (forced_decoding.h).
#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "nmt/core/enum_names.h"
#include "nmt/data/tokenizer.h"
#include "nmt/model/ensemble_decoder.h"
#include "nmt/model/incremental_decoder.h"
#include "nmt/search/lexical_shortlist.h"
#include "nmt/search/search_options.h"
#include "nmt/search/search_strategy.h"

namespace nmt {

/// What happens to an input longer than max_source_length subwords.
enum class LongInputPolicy {
  truncate,  // translate its first max_source_length subwords and log a warning naming the line
  reject,    // stop with a DataError naming the line
};
const EnumNames<LongInputPolicy>& enum_names(LongInputPolicy);  // truncate, reject

struct TranslateOptions {
  SearchOptions search;                 // beam_size 1: greedy search
  std::int64_t max_tokens = 16000;      // source positions per batch (padding included) times the beam size
  int workers = 0;                      // batches translated at once, each on its own thread with
                                        //   single-threaded BLAS; 0: one per core (at most 4); CPU only
  std::int64_t max_sentences = 0;       // sentences per batch; 0: no limit beyond max_tokens
  std::int64_t max_source_length = 250; // subwords (EOS not counted)
  LongInputPolicy long_inputs = LongInputPolicy::truncate;
  bool replace_unknown = false;         // <unk> in the output -> the source piece it attends to most
  /// A tag (a user-defined symbol of the source subword model, data.corpus's `tag`) put before
  /// every non-empty source, not counted in max_source_length; "": none.
  std::string source_tag;
  /// Search scores each sentence's output over its own list of target pieces only (a lexical
  /// shortlist, nmt/search/shortlist_decoder.h); null: the whole vocabulary. Scoring ignores it.
  std::shared_ptr<const LexicalShortlist> shortlist;
  void validate() const;                // throws ConfigError naming the option
};

struct TranslatedHypothesis {
  std::string text;
  std::vector<int> tokens;  // target ids, no EOS (before unknown-piece replacement)
  std::vector<std::string> pieces;  // the pieces the text was decoded from (after replacement)
  double score = 0;         // the search's final score (length penalty, coverage included)
  double log_prob = 0;      // sum of log p of the tokens and the final EOS
  bool finished = true;     // false: stopped at the length limit without EOS
  at::Tensor attention;     // [steps, source positions + EOS] on the CPU, when attention is kept
};

struct Translation {
  std::vector<int> source;  // source ids as translated (the tag first, after truncation), no EOS
  bool tagged = false;      // source[0] is a tag (TranslateOptions::source_tag), no word of the sentence
  bool truncated = false;
  std::vector<TranslatedHypothesis> hypotheses;  // n-best, best first; empty for an empty input
};

/// Called after each batch with the number of sentences and target tokens finished so far.
using TranslateProgress = std::function<void(std::size_t sentences, std::int64_t target_tokens)>;

class Translator {
 public:
  /// The model (an inference form, Seq2Seq::for_inference, or an ensemble of them) must be on
  /// `device` and outlive this. `source_tokenizer` segments the model's input (an ensemble's view 0;
  /// members that read other segmentations get theirs from the views the ensemble owns). With
  /// options.search.hard_attention the Translator searches the model hardened (attention_hardening.h;
  /// ConfigError for a scripted model or one without attention). ConfigError for a source_tag
  /// the source subword model does not hold as a user-defined symbol (naming the tags it has).
  Translator(const IncrementalDecoder& model, Tokenizer source_tokenizer, Tokenizer target_tokenizer,
             TranslateOptions options, c10::Device device);

  /// One Translation per sentence, in input order. An empty (or blank) line gives no hypotheses.
  /// `first_line`: the 1-based input line of sentences[0], for messages about long lines.
  std::vector<Translation> translate(const std::vector<std::string>& sentences, std::size_t first_line = 1,
                                     const TranslateProgress& progress = nullptr);

  /// Forced decoding: per pair, sum over the target's subwords and EOS of log p(y_t | y_<t, x).
  /// `tokens` receives each target's length in subwords with EOS, when not null.
  std::vector<double> score(const std::vector<std::string>& sources, const std::vector<std::string>& targets,
                            std::size_t first_line = 1, std::vector<std::int64_t>* tokens = nullptr);

  const TranslateOptions& options() const { return options_; }
  const Tokenizer& source_tokenizer() const { return source_tokenizer_; }
  const Tokenizer& target_tokenizer() const { return target_tokenizer_; }

 private:
  /// Encodes with `tokenizer` and applies the long-input policy (`view` names a further segmentation
  /// in messages; empty for the translator's own).
  /// `tag`: the id put before a non-empty source, or -1.
  std::vector<int> encode_source(const Tokenizer& tokenizer, int tag, const std::string& sentence, std::size_t line,
                                 bool* truncated, const std::string& view = "") const;
  std::vector<int> encode_source(const std::string& sentence, std::size_t line, bool* truncated) const {
    return encode_source(source_tokenizer_, source_tag_, sentence, line, truncated);
  }
  /// The sentences in the ensemble's further source views ([view - 1][sentence]; empty without).
  std::vector<std::vector<std::vector<int>>> encode_further_views(const std::vector<std::string>& sentences,
                                                                  std::size_t first_line) const;
  /// The decoder that searches the batch order[start, end): the model, or, for an ensemble with
  /// further views, the ensemble made for the batch's views.
  std::shared_ptr<const IncrementalDecoder> model_for_batch(
      const std::vector<std::vector<std::vector<int>>>& view_ids, const std::vector<std::size_t>& order,
      std::size_t start, std::size_t end) const;
  /// `tagged`: source[0] is the tag (Translation::tagged).
  TranslatedHypothesis finish(Hypothesis&& hypothesis, const std::vector<int>& source, bool tagged) const;
  /// The id of options_.source_tag in `tokenizer` (-1 without a tag); ConfigError when it is no
  /// user-defined symbol there (`view` names a further segmentation, as in encode_source).
  int source_tag_id(const Tokenizer& tokenizer, const std::string& view) const;
  /// Threads for translate(): options_.workers, or one per core (at most 4); 1 off the CPU.
  std::size_t worker_count() const;

  const IncrementalDecoder* model_;  // the model given, or hardened_
  std::shared_ptr<const IncrementalDecoder> hardened_;  // with options.search.hard_attention
  /// model_ as an ensemble whose members read further source views; null for any other model.
  const EnsembleDecoder* ensemble_with_views_ = nullptr;
  Tokenizer source_tokenizer_, target_tokenizer_;
  TranslateOptions options_;
  int source_tag_ = -1;  // options_.source_tag's id in source_tokenizer_, or -1
  c10::Device device_;
  std::unique_ptr<const SearchStrategy> search_;  // chosen once from options_.search
};

/// Greedy translations of `sentences` in input order (validation during training).
std::vector<std::string> translate_greedy(const IncrementalDecoder& model, const Tokenizer& source_tokenizer,
                                          const Tokenizer& target_tokenizer, const std::vector<std::string>& sentences,
                                          TranslateOptions options, const c10::Device& device);

}  // namespace nmt
