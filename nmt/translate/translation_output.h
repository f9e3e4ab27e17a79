// The text forms of translations that nmt-translate writes (docs/search.md, "nmt-translate").
#pragma once

#include <cstddef>
#include <string>

#include "nmt/data/attention_record.h"
#include "nmt/translate/translator.h"

namespace nmt {

/// The main output for one input line, newline included:
///   plain:         TEXT
///   with scores:   SCORE<TAB>TEXT                      (the search's final score)
///   n-best:        one line per hypothesis, Moses style, `index` 0-based:
///                  INDEX ||| TEXT ||| log_prob=R finished=0|1 ||| SCORE
/// An empty input gives an empty line (n-best: one entry with empty text and score 0).
std::string format_translation(const Translation& translation, std::size_t index, bool scores, bool n_best);

/// A hypothesis' attention as a record (nmt/data/attention_record.h; the best by default): rows are
/// target steps (the EOS step included when the hypothesis finished), columns source positions (EOS
/// included); weights rounded to 6 decimals. An empty translation has no pieces and no rows. The one
/// form of a translation's attention: nmt-translate writes it, nmt-serve answers with its fields.
AttentionRecord attention_record(const Translation& translation, std::size_t index, const Tokenizer& source_tokenizer,
                                 std::size_t hypothesis = 0);

/// attention_record(...) as one JSON line, newline included (--attention-output).
std::string format_attention_json(const Translation& translation, std::size_t index, const Tokenizer& source_tokenizer);

/// Hard word alignment of the best hypothesis, newline included: "s-t" pairs separated by spaces,
/// sorted by s then t, as word aligners print them. s and t are 0-based indices of the
/// whitespace-separated words of the (detokenized) source and translation: each target subword is
/// aligned to the source subword it attends to most (EOS excluded on both sides), and subwords map
/// to the words they belong to.
/// A tagged source's tag (Translation::tagged) is no word: words count from the first piece after it.
std::string format_alignment(const Translation& translation, const Tokenizer& source_tokenizer);

}  // namespace nmt
