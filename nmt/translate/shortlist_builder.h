// Building a lexical shortlist from a parallel corpus (nmt-checkpoint shortlist; docs/search.md,
// "Lexical shortlist"). Each side is segmented with the checkpoint's own subword models; a target
// piece t is listed for a source piece s by the Dice coefficient of the sentences they occur in,
//   dice(s, t) = 2 c(s, t) / (c(s) + c(t)),
// c counting sentence pairs (a piece counts once per sentence), the top_k best per source piece
// (ties: more sentences together, then the smaller id); plus the `frequent` target pieces with the
// most occurrences. Memory: each sentence's distinct pieces, an inverted index of the source side
// and 32 MiB of counters.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "nmt/search/lexical_shortlist.h"

namespace nmt {


struct ShortlistBuildOptions {
  std::string checkpoint;        // the model whose subword models segment the corpus
  std::string source, target;    // parallel text, one sentence a line (the training corpus)
  std::string output;            // the shortlist file, written atomically
  bool replace = false;          // replace an existing output
  std::int64_t top_k = 50;       // target pieces per source piece
  std::int64_t frequent = 100;   // most frequent target pieces, in every list
  void validate() const;         // ConfigError naming the option
};

struct ShortlistBuildSummary {
  std::int64_t sentences = 0;       // sentence pairs read
  std::int64_t listed_pairs = 0;    // (source piece, target piece) entries in the table
  std::int64_t source_pieces = 0;   // source pieces with a list
};

/// The Dice table of tokenized pairs (ids in [0, vocab); specials 0..3 are neither counted nor
/// listed). Returns [source_vocab, top_k] int32, -1 padded.
at::Tensor dice_table(const std::vector<std::vector<int>>& sources, const std::vector<std::vector<int>>& targets,
                      std::int64_t source_vocab, std::int64_t target_vocab, std::int64_t top_k);

/// The `n` target pieces with the most occurrences (ties: the smaller id), specials excluded,
/// increasing: from the sentences, or from the occurrences counted by id.
std::vector<std::int64_t> most_frequent_pieces(const std::vector<std::vector<int>>& targets, std::int64_t target_vocab,
                                               std::int64_t n);
std::vector<std::int64_t> most_frequent_pieces(const std::vector<std::int64_t>& occurrences, std::int64_t n);

/// Reads the corpus, builds the shortlist for options.checkpoint and writes it to options.output.
ShortlistBuildSummary build_shortlist(const ShortlistBuildOptions& options);

}  // namespace nmt
