// Translating a whole input stream in chunks: read up to `chunk_lines` lines, translate them
// (batched by length inside the chunk), write every requested output in input order, repeat.
// Memory stays bounded for inputs of any size; outputs appear chunk by chunk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>

#include "nmt/data/text_file.h"
#include "nmt/translate/translator.h"

namespace nmt {

struct StreamOutputs {
  std::ostream* translations = nullptr;  // required: one line per input line (n-best: n lines)
  std::ostream* attention = nullptr;     // optional: attention JSON lines
  std::ostream* alignments = nullptr;    // optional: hard word alignments, one line per input line
  bool scores = false;                   // prefix each translation with its score
  bool n_best = false;                   // Moses-style n-best lines instead
};

struct StreamOptions {
  std::size_t chunk_lines = 10000;  // lines read, sorted and translated together
  bool progress = false;            // log sentences/s every progress_seconds on stderr
  double progress_seconds = 10;
};

struct StreamSummary {
  std::size_t sentences = 0;
  std::int64_t target_tokens = 0;  // of the best hypotheses, EOS included
  double seconds = 0;
};

/// Translates every line of `input`. Throws what the reader and translator throw (with the line).
StreamSummary translate_stream(Translator& translator, TextLineReader& input, const StreamOutputs& outputs,
                               const StreamOptions& options);

/// Forced decoding of line pairs: writes "LOG_PROB<TAB>TOKENS" per pair (TOKENS: target subwords
/// with EOS). Throws DataError naming both files when their line counts differ.
StreamSummary score_stream(Translator& translator, TextLineReader& sources, TextLineReader& targets,
                           std::ostream& output, const StreamOptions& options);

}  // namespace nmt
