#include "nmt/translate/translation_output.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <utility>
#include <vector>

#include "nmt/data/subword_words.h"

namespace nmt {
namespace {

std::string number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6f", value);
  return buffer;
}

std::vector<std::string> source_pieces(const Translation& translation, const Tokenizer& tokenizer) {
  std::vector<std::string> pieces;
  for (int id : translation.source) pieces.push_back(tokenizer.id_to_piece(id));
  return pieces;
}

// The rows of an attention matrix [steps, positions] as doubles (exact: float to double).
std::vector<std::vector<double>> weight_rows(const at::Tensor& attention) {
  const at::Tensor weights = attention.to(at::kDouble).contiguous();
  const auto* data = weights.data_ptr<double>();
  std::vector<std::vector<double>> rows;
  for (std::int64_t t = 0; t < weights.size(0); ++t) {
    rows.emplace_back(data + t * weights.size(1), data + (t + 1) * weights.size(1));
  }
  return rows;
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

AttentionRecord attention_record(const Translation& translation, std::size_t index, const Tokenizer& source_tokenizer,
                                 std::size_t hypothesis) {
  AttentionRecord record;
  record.index = static_cast<std::int64_t>(index);
  if (hypothesis >= translation.hypotheses.size()) return record;
  const TranslatedHypothesis& best = translation.hypotheses[hypothesis];
  record.source = source_pieces(translation, source_tokenizer);
  record.source.push_back("</s>");
  record.target = best.pieces;
  if (best.finished) record.target.push_back("</s>");
  if (best.attention.defined()) {
    for (auto& row : weight_rows(best.attention)) {
      for (double& w : row) w = rounded_weight(w);
      record.weights.push_back(std::move(row));
    }
  }
  return record;
}

std::string format_attention_json(const Translation& translation, std::size_t index, const Tokenizer& source_tokenizer) {
  return attention_record(translation, index, source_tokenizer).to_json() + "\n";
}

std::string format_alignment(const Translation& translation, const Tokenizer& source_tokenizer) {
  if (translation.hypotheses.empty() || translation.source.empty()) return "\n";
  const TranslatedHypothesis& best = translation.hypotheses.front();
  if (!best.attention.defined()) return "\n";
  std::vector<std::string> pieces = source_pieces(translation, source_tokenizer);
  // The tag is no word of the sentence: words count from the piece after it, and a target piece
  // that attends most to the tag is aligned to nothing.
  const std::size_t skip = translation.tagged ? 1 : 0;
  pieces.erase(pieces.begin(), pieces.begin() + static_cast<std::ptrdiff_t>(std::min(skip, pieces.size())));
  const std::vector<std::size_t> source_words = word_of_pieces(pieces);
  const std::vector<std::size_t> target_words = word_of_pieces(best.pieces);
  // Each target piece (not the EOS step) to the source piece (not EOS) it attends to most.
  std::vector<std::vector<double>> rows = weight_rows(best.attention);
  rows.resize(std::min(rows.size(), target_words.size()));
  const std::vector<std::size_t> aligned = hard_alignment(rows, translation.source.size());
  std::set<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t t = 0; t < aligned.size(); ++t) {
    if (aligned[t] >= skip) pairs.emplace(source_words[aligned[t] - skip], target_words[t]);
  }
  std::string line;
  for (const auto& [s, t] : pairs) line += (line.empty() ? "" : " ") + std::to_string(s) + "-" + std::to_string(t);
  return line + "\n";
}

}  // namespace nmt
