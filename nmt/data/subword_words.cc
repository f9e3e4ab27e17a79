#include "nmt/data/subword_words.h"

namespace nmt {

bool starts_word(const std::string& piece) { return piece.compare(0, kWordMark.size(), kWordMark) == 0; }

std::vector<std::size_t> word_of_pieces(const std::vector<std::string>& pieces) {
  static const std::string eos = "</s>";
  std::vector<std::size_t> words;
  words.reserve(pieces.size());
  std::size_t word = 0;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (i > 0 && (starts_word(pieces[i]) || pieces[i] == eos || pieces[i - 1] == eos)) ++word;
    words.push_back(word);
  }
  return words;
}

}  // namespace nmt
