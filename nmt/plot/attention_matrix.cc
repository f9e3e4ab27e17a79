#include "nmt/plot/attention_matrix.h"

#include <algorithm>

#include "nmt/core/decimal_number.h"
#include "nmt/core/error.h"
#include "nmt/core/text_list.h"
#include "nmt/data/subword_words.h"
#include "nmt/data/text_file.h"

namespace nmt::plot {
namespace {

const std::string kEos = "</s>";

std::vector<std::string> word_labels(const std::vector<std::string>& pieces, const std::vector<std::size_t>& word) {
  std::vector<std::string> labels(pieces.empty() ? 0 : word.back() + 1);
  for (std::size_t i = 0; i < pieces.size(); ++i) labels[word[i]] += piece_label(pieces[i], false);
  return labels;
}

}  // namespace

std::string piece_label(const std::string& piece, bool mark_continuation) {
  if (piece == kWordMark) return piece;  // a space of its own (SentencePiece splits "▁" from some symbols)
  if (starts_word(piece)) return piece.substr(kWordMark.size());
  if (piece == kEos || !mark_continuation) return piece;
  return "\xC2\xB7" + piece;  // U+00B7 middle dot: continues the previous piece's word
}

std::vector<std::size_t> AttentionMatrix::hard_alignment() const { return nmt::hard_alignment(weights, source.size()); }

AttentionMatrix parse_attention_line(const std::string& line, const std::string& where, std::int64_t line_number) {
  AttentionMatrix m;
  static_cast<AttentionRecord&>(m) = AttentionRecord::from_json(line, where);
  m.line = line_number;
  return m;
}

std::vector<AttentionMatrix> read_attention_file(const std::string& path,
                                                 const std::function<bool(std::int64_t line)>& keep) {
  TextLineReader in(path);
  std::vector<AttentionMatrix> out;
  std::string line;
  while (in.next(line)) {
    const auto n = static_cast<std::int64_t>(in.line_number());
    out.push_back(parse_attention_line(line, path + " line " + std::to_string(n), n));
    if (keep && !keep(n)) out.back().weights = {};  // checked, not kept
  }
  if (out.empty()) throw DataError(path + ": empty (no attention lines)");
  return out;
}

AttentionMatrix merge_words(const AttentionMatrix& pieces) {
  const std::vector<std::size_t> source_word = word_of_pieces(pieces.source);
  const std::vector<std::size_t> target_word = word_of_pieces(pieces.target);
  AttentionMatrix m;
  m.index = pieces.index;
  m.line = pieces.line;
  m.words = true;
  m.source = word_labels(pieces.source, source_word);
  m.target = word_labels(pieces.target, target_word);
  m.weights.assign(m.target.size(), std::vector<double>(m.source.size(), 0.0));
  std::vector<double> pieces_in_word(m.target.size(), 0.0);
  for (std::size_t t = 0; t < pieces.weights.size(); ++t) {
    pieces_in_word[target_word[t]] += 1;
    for (std::size_t j = 0; j < pieces.weights[t].size(); ++j) {
      m.weights[target_word[t]][source_word[j]] += pieces.weights[t][j];  // sum over source pieces
    }
  }
  for (std::size_t w = 0; w < m.weights.size(); ++w) {
    for (double& value : m.weights[w]) value /= pieces_in_word[w];  // average over target pieces
  }
  return m;
}

std::vector<std::int64_t> parse_line_selection(const std::string& list, const std::string& option) {
  constexpr long long kMaxLine = 1000000000;   // more lines than any attention file holds
  constexpr std::size_t kMaxSelected = 1000000;
  std::vector<std::int64_t> out;
  if (list.empty()) throw ConfigError(option + ": no line given (e.g. 1,3,7-9; leave the option out for all)");
  for (const std::string& item : split_list(list)) {
    const auto bad = [&] {
      return ConfigError(option + ": " + quoted_excerpt(item) + " is not a line number or range (e.g. 1,3,7-9)");
    };
    const std::size_t dash = item.find('-');
    long long low = 0, high = 0;
    try {
      low = parse_decimal_integer(item.substr(0, dash), option);
      high = dash != std::string::npos ? parse_decimal_integer(item.substr(dash + 1), option) : low;
    } catch (const ConfigError&) {  // not a decimal number, or beyond 64 bits
      throw bad();
    }
    if (low < 1 || high < low) throw bad();
    if (high > kMaxLine) throw ConfigError(option + ": line " + std::to_string(high) + " is beyond any attention file");
    if (out.size() + static_cast<std::size_t>(high - low) >= kMaxSelected) {
      throw ConfigError(option + ": more than " + std::to_string(kMaxSelected) + " lines selected");
    }
    for (long long k = 0; k <= high - low; ++k) out.push_back(low + k);
  }
  return out;
}

}  // namespace nmt::plot
