// Subword pieces and the words they spell: SentencePiece marks the first piece of a word with
// U+2581 ("▁"); the pieces up to the next such piece form one word. Shared by the hard word
// alignments nmt-translate writes and the word-merged heat-maps nmt-plot draws.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace nmt {

/// U+2581, SentencePiece's word boundary, as UTF-8.
inline const std::string kWordMark = "\xE2\x96\x81";

/// Whether `piece` begins with the word mark.
bool starts_word(const std::string& piece);

/// The word index (from 0) of each piece: a new word begins at each piece with the word mark
/// (except the first piece, which always begins word 0), at "</s>" and after it, so that the end
/// of a sentence is a word of its own.
std::vector<std::size_t> word_of_pieces(const std::vector<std::string>& pieces);

}  // namespace nmt
