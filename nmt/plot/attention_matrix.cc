#include "nmt/plot/attention_matrix.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <algorithm>
#include <fstream>

#include "nmt/core/error.h"
#include "nmt/core/text_list.h"

namespace nmt::plot {
namespace {

const std::string kWordMark = "\xE2\x96\x81";  // U+2581, SentencePiece's word boundary
const std::string kEos = "</s>";

bool starts_word(const std::string& piece) { return piece.compare(0, kWordMark.size(), kWordMark) == 0; }

std::vector<std::string> string_array(const nlohmann::json& object, const char* field, const std::string& where) {
  if (!object.contains(field) || !object[field].is_array()) {
    throw DataError(where + ": not attention output (no \"" + field + "\" list)");
  }
  std::vector<std::string> out;
  for (const auto& item : object[field]) {
    if (!item.is_string()) throw DataError(where + ": \"" + field + "\" holds a value that is not text");
    out.push_back(item.get<std::string>());
  }
  return out;
}

// Word number of each piece: a new word at each word mark and at "</s>".
std::vector<std::size_t> word_of(const std::vector<std::string>& pieces) {
  std::vector<std::size_t> words;
  std::size_t word = 0;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const bool after_eos = i > 0 && pieces[i - 1] == kEos;
    if (i > 0 && (starts_word(pieces[i]) || pieces[i] == kEos || after_eos)) ++word;
    words.push_back(word);
  }
  return words;
}

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

std::vector<std::size_t> AttentionMatrix::hard_alignment() const {
  std::vector<std::size_t> out;
  for (const auto& row : weights) {
    std::size_t best = 0;
    for (std::size_t j = 1; j < row.size(); ++j) {
      if (row[j] > row[best]) best = j;
    }
    out.push_back(best);
  }
  return out;
}

AttentionMatrix parse_attention_line(const std::string& line, const std::string& where, std::int64_t line_number) {
  nlohmann::json object;
  try {
    object = nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception&) {
    throw DataError(where + ": not a JSON object (attention output has one per line)");
  }
  if (!object.is_object()) throw DataError(where + ": not a JSON object (attention output has one per line)");
  AttentionMatrix m;
  if (!object.contains("index") || !object["index"].is_number_integer()) {
    throw DataError(where + ": not attention output (no integer \"index\")");
  }
  m.index = object["index"].get<std::int64_t>();
  m.line = line_number;
  m.source = string_array(object, "source", where);
  m.target = string_array(object, "target", where);
  if (!object.contains("attention") || !object["attention"].is_array()) {
    throw DataError(where + ": not attention output (no \"attention\" rows)");
  }
  const auto& rows = object["attention"];
  if (rows.size() != m.target.size()) {
    throw DataError(where + ": " + std::to_string(rows.size()) + " attention rows for " +
                    std::to_string(m.target.size()) + " target tokens");
  }
  for (std::size_t t = 0; t < rows.size(); ++t) {
    const std::string row_where = where + ", row " + std::to_string(t + 1);
    if (!rows[t].is_array() || rows[t].size() != m.source.size()) {
      throw DataError(row_where + ": " + std::to_string(rows[t].is_array() ? rows[t].size() : 0) +
                      " weights for " + std::to_string(m.source.size()) + " source tokens");
    }
    std::vector<double> row;
    double sum = 0;
    for (const auto& value : rows[t]) {
      if (!value.is_number()) throw DataError(row_where + ": a weight that is not a number");
      const double w = value.get<double>();
      if (!(w >= 0 && w <= 1)) throw DataError(row_where + ": weight " + std::to_string(w) + " outside [0, 1]");
      row.push_back(w);
      sum += w;
    }
    // Weights are written rounded to 1e-6: a row of n sums to 1 within n * 5e-7.
    const double tolerance = std::max(1e-3, 6e-7 * static_cast<double>(row.size()));
    if (!(std::abs(sum - 1) <= tolerance)) throw DataError(row_where + ": weights sum to " + std::to_string(sum) + ", not 1");
    m.weights.push_back(std::move(row));
  }
  return m;
}

std::vector<AttentionMatrix> read_attention_file(const std::string& path,
                                                 const std::function<bool(std::int64_t line)>& keep) {
  std::ifstream in(path);
  if (!in) throw IoError("cannot open attention file " + path);
  std::vector<AttentionMatrix> out;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    const auto n = static_cast<std::int64_t>(number);
    out.push_back(parse_attention_line(line, path + " line " + std::to_string(number), n));
    if (keep && !keep(n)) out.back().weights = {};  // checked, not kept
  }
  if (in.bad()) throw IoError("cannot read attention file " + path);
  if (out.empty()) throw DataError(path + ": empty (no attention lines)");
  return out;
}

AttentionMatrix merge_words(const AttentionMatrix& pieces) {
  const std::vector<std::size_t> source_word = word_of(pieces.source);
  const std::vector<std::size_t> target_word = word_of(pieces.target);
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
  for (const std::string& item : split_list(list)) {
    const auto bad = [&] {
      return ConfigError(option + ": '" + item + "' is not a line number or range (e.g. 1,3,7-9)");
    };
    const std::size_t dash = item.find('-');
    long long low = 0, high = 0;
    try {
      std::size_t used = 0;
      const std::string first = item.substr(0, dash);
      low = std::stoll(first, &used);
      if (used != first.size()) throw bad();
      high = low;
      if (dash != std::string::npos) {
        const std::string second = item.substr(dash + 1);
        high = std::stoll(second, &used);
        if (used != second.size()) throw bad();
      }
    } catch (const std::logic_error&) {  // stoll: not a number, or out of range
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
