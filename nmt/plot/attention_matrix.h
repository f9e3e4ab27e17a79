// An attention matrix to draw: the record nmt-translate --attention-output writes (one JSON line
// each: nmt/data/attention_record.h) with the line it came from, and its merge from subword pieces
// into words.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "nmt/data/attention_record.h"

namespace nmt::plot {

/// Labels: source (columns) and target (rows) pieces, or words; "</s>" last.
struct AttentionMatrix : AttentionRecord {
  std::int64_t line = 0;  // the line of the attention file, from 1 (= the input line)
  bool words = false;     // labels are merged words, not pieces

  /// The source column each target row attends to most (the hard alignment), ties to the first.
  std::vector<std::size_t> hard_alignment() const;
};

/// One line of attention output, checked (AttentionRecord::from_json; `where` prefixes every
/// DataError). An empty translation (no target) is returned with no rows. `line_number` becomes
/// its line.
AttentionMatrix parse_attention_line(const std::string& line, const std::string& where, std::int64_t line_number = 1);

/// Every line of an attention output file (read with TextLineReader: invalid UTF-8 is a DataError
/// naming the file and line), each checked; the weights only of lines `keep` accepts (all when it
/// is empty: a large file with a few lines picked stays small). Throws IoError (cannot read) or
/// DataError (as above; an empty file is an error too).
std::vector<AttentionMatrix> read_attention_file(const std::string& path,
                                                 const std::function<bool(std::int64_t line)>& keep = nullptr);

/// Pieces to words: SentencePiece marks a word's first piece with U+2581 ("▁"); the pieces up to the
/// next such piece form a word (labels without the mark; "</s>" stays its own word). A target
/// word's row is the average of its pieces' rows and a source word's column the sum of its pieces'
/// columns, so every merged row still sums to 1.
AttentionMatrix merge_words(const AttentionMatrix& pieces);

/// A piece's label as shown: without the word mark (a word-initial piece gets none; a piece inside
/// a word gets a leading "·" when `mark_continuation`).
std::string piece_label(const std::string& piece, bool mark_continuation);

/// "1,3,7-9" -> {1, 3, 7, 8, 9} (input lines, 1-based). ConfigError naming `option` otherwise.
std::vector<std::int64_t> parse_line_selection(const std::string& list, const std::string& option);

}  // namespace nmt::plot
