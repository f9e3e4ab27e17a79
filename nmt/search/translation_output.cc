#include "nmt/search/translation_output.h"

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <set>
#include <utility>
#include <vector>

namespace nmt {
namespace {

std::string number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6f", value);
  return buffer;
}

/// Word index of each piece: a piece that starts with "▁" (U+2581, SentencePiece's space) begins a
/// new word, except at the very start.
std::vector<std::int64_t> word_of_pieces(const std::vector<std::string>& pieces) {
  static const std::string space = "\xE2\x96\x81";
  std::vector<std::int64_t> words;
  std::int64_t word = -1;
  for (const std::string& piece : pieces) {
    if (word < 0 || piece.compare(0, space.size(), space) == 0) ++word;
    words.push_back(word);
  }
  return words;
}

std::vector<std::string> source_pieces(const Translation& translation, const Tokenizer& tokenizer) {
  std::vector<std::string> pieces;
  for (int id : translation.source) pieces.push_back(tokenizer.id_to_piece(id));
  return pieces;
}

}  // namespace

std::string format_translation(const Translation& translation, std::size_t index, bool scores, bool n_best) {
  if (!n_best) {
    if (translation.hypotheses.empty()) return scores ? number(0) + "\t\n" : "\n";
    const TranslatedHypothesis& best = translation.hypotheses.front();
    return (scores ? number(best.score) + "\t" : std::string()) + best.text + "\n";
  }
  const std::string prefix = std::to_string(index) + " ||| ";
  if (translation.hypotheses.empty()) return prefix + " ||| log_prob=" + number(0) + " finished=1 ||| " + number(0) + "\n";
  std::string lines;
  for (const TranslatedHypothesis& h : translation.hypotheses) {
    lines += prefix + h.text + " ||| log_prob=" + number(h.log_prob) + " finished=" + (h.finished ? "1" : "0") +
             " ||| " + number(h.score) + "\n";
  }
  return lines;
}

std::string format_attention_json(const Translation& translation, std::size_t index, const Tokenizer& source_tokenizer) {
  nlohmann::json object;
  object["index"] = index;
  object["source"] = nlohmann::json::array();
  object["target"] = nlohmann::json::array();
  object["attention"] = nlohmann::json::array();
  if (!translation.hypotheses.empty()) {
    const TranslatedHypothesis& best = translation.hypotheses.front();
    for (const std::string& piece : source_pieces(translation, source_tokenizer)) object["source"].push_back(piece);
    object["source"].push_back("</s>");
    for (const std::string& piece : best.pieces) object["target"].push_back(piece);
    if (best.finished) object["target"].push_back("</s>");
    if (best.attention.defined()) {
      const at::Tensor weights = best.attention.to(at::kDouble).contiguous();
      const auto* data = weights.data_ptr<double>();
      for (std::int64_t t = 0; t < weights.size(0); ++t) {
        nlohmann::json row = nlohmann::json::array();
        for (std::int64_t j = 0; j < weights.size(1); ++j) {
          row.push_back(std::round(data[t * weights.size(1) + j] * 1e6) / 1e6);
        }
        object["attention"].push_back(std::move(row));
      }
    }
  }
  return object.dump() + "\n";
}

std::string format_alignment(const Translation& translation, const Tokenizer& source_tokenizer) {
  if (translation.hypotheses.empty() || translation.source.empty()) return "\n";
  const TranslatedHypothesis& best = translation.hypotheses.front();
  if (!best.attention.defined()) return "\n";
  const std::vector<std::int64_t> source_words = word_of_pieces(source_pieces(translation, source_tokenizer));
  const std::vector<std::int64_t> target_words = word_of_pieces(best.pieces);
  const auto n = static_cast<std::int64_t>(translation.source.size());
  const at::Tensor argmax = best.attention.slice(1, 0, n).argmax(1).contiguous();  // [steps]
  std::set<std::pair<std::int64_t, std::int64_t>> pairs;
  for (std::size_t t = 0; t < target_words.size(); ++t) {
    const auto j = static_cast<std::size_t>(argmax[static_cast<std::int64_t>(t)].item<std::int64_t>());
    pairs.emplace(source_words[j], target_words[t]);
  }
  std::string line;
  for (const auto& [s, t] : pairs) line += (line.empty() ? "" : " ") + std::to_string(s) + "-" + std::to_string(t);
  return line + "\n";
}

}  // namespace nmt
