#include "nmt/eval/scoring.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "nmt/core/error.h"
#include "nmt/core/text_list.h"
#include "nmt/data/text_file.h"
#include "nmt/eval/metric_helpers.h"
#include "nmt/eval/unicode_text.h"

namespace nmt {
namespace {

constexpr int kMaxWidth = 20;

std::string plural_lines(std::size_t count) { return std::to_string(count) + (count == 1 ? " line" : " lines"); }

// sacreBLEU's JSON adds each "key:value" pair of the signature as a member.
void add_signature_fields(nlohmann::ordered_json& json, const std::string& signature) {
  for (const std::string& pair : split_list(signature, '|')) {
    const std::size_t colon = pair.find(':');
    if (colon != std::string::npos) json[pair.substr(0, colon)] = pair.substr(colon + 1);
  }
}

}  // namespace

std::vector<std::string> read_stripped_lines(const std::string& path, std::string& display_name) {
  TextLineReader reader(path);
  display_name = reader.path();
  std::vector<std::string> lines;
  for (std::string line; reader.next(line);) {
    line.resize(rstrip_whitespace(line).size());
    lines.push_back(std::move(line));
  }
  return lines;
}

void ScoringOptions::validate() const {
  if (metrics.empty()) throw ConfigError("metrics: none given (expected bleu, chrf or both)");
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    if (metrics[i] != "bleu" && metrics[i] != "chrf")
      throw ConfigError("metrics: unknown metric '" + metrics[i] + "' (expected bleu or chrf)");
    if (std::find(metrics.begin(), metrics.begin() + static_cast<std::ptrdiff_t>(i), metrics[i]) !=
        metrics.begin() + static_cast<std::ptrdiff_t>(i))
      throw ConfigError("metrics: '" + metrics[i] + "' is listed twice");
  }
  if (width < 0 || width > kMaxWidth)
    throw ConfigError("width must be between 0 and " + std::to_string(kMaxWidth) + " decimals, got " +
                      std::to_string(width));
  bleu_options().validate();
  chrf_options().validate();
}

BleuOptions ScoringOptions::bleu_options() const {
  BleuOptions options;
  options.lowercase = lowercase;
  options.tokenize = tokenize;
  return options;
}

ChrfOptions ScoringOptions::chrf_options() const {
  ChrfOptions options;
  options.lowercase = lowercase;
  return options;
}

std::vector<std::string> split_metric_list(const std::string& list) {
  std::vector<std::string> names;
  for (std::string name : split_list(list)) {
    const auto blank = [](char c) { return c == ' ' || c == '\t'; };
    while (!name.empty() && blank(name.back())) name.pop_back();
    name.erase(0, static_cast<std::size_t>(std::find_if_not(name.begin(), name.end(), blank) - name.begin()));
    if (!name.empty()) names.push_back(std::move(name));
  }
  return names;
}

ScoringInput read_scoring_input(const std::string& hypothesis_path, const std::vector<std::string>& reference_paths) {
  if (reference_paths.empty()) throw ConfigError("no reference file given (at least one is needed)");
  const auto from_stdin = std::count(reference_paths.begin(), reference_paths.end(), "-") + (hypothesis_path == "-");
  if (from_stdin > 1)
    throw ConfigError("standard input ('-') can be read once: as the hypotheses or as one reference file");

  ScoringInput input;
  std::string hypothesis_name;
  input.hypotheses = read_stripped_lines(hypothesis_path, hypothesis_name);
  std::vector<std::string> reference_names(reference_paths.size());
  for (std::size_t r = 0; r < reference_paths.size(); ++r) {
    input.references.push_back(read_stripped_lines(reference_paths[r], reference_names[r]));
    const std::size_t count = input.references.back().size();
    if (count != input.hypotheses.size())
      throw DataError("line count mismatch: hypotheses " + hypothesis_name + " have " +
                      plural_lines(input.hypotheses.size()) + ", reference " + reference_names[r] + " has " +
                      std::to_string(count));
  }
  for (std::size_t i = 0; i < input.hypotheses.size(); ++i) {
    const bool any = std::any_of(input.references.begin(), input.references.end(),
                                 [&](const std::vector<std::string>& stream) { return !stream[i].empty(); });
    if (any) continue;
    if (reference_names.size() == 1)
      throw DataError(reference_names[0] + ":" + std::to_string(i + 1) +
                      ": empty reference (every line needs a non-empty reference, as in sacreBLEU)");
    std::string names;
    for (const auto& name : reference_names) names += (names.empty() ? "" : ", ") + name;
    throw DataError("line " + std::to_string(i + 1) + ": every reference is empty (" + names + ")");
  }
  return input;
}

CorpusScores score_corpus(const ScoringInput& input, const ScoringOptions& options) {
  options.validate();
  CorpusScores scores;
  for (const auto& metric : options.metrics) {
    if (metric == "bleu") scores.bleu = corpus_bleu(input.hypotheses, input.references, options.bleu_options());
    if (metric == "chrf") scores.chrf = corpus_chrf(input.hypotheses, input.references, options.chrf_options());
  }
  return scores;
}

std::string format_scores(const CorpusScores& scores, const ScoringOptions& options) {
  std::string out;
  for (const auto& metric : options.metrics) {
    if (metric == "bleu" && scores.bleu)
      out += scores.bleu->format(options.width) + "  " + scores.bleu->signature(options.bleu_options()) + "\n";
    if (metric == "chrf" && scores.chrf)
      out += scores.chrf->format(options.width) + "  " + scores.chrf->signature(options.chrf_options()) + "\n";
  }
  return out;
}

std::string scores_json(const CorpusScores& scores, const ScoringOptions& options) {
  nlohmann::ordered_json json = nlohmann::ordered_json::object();
  for (const auto& metric : options.metrics) {
    if (metric == "bleu" && scores.bleu) {
      const BleuScore& s = *scores.bleu;
      const std::string signature = s.signature(options.bleu_options());
      std::string verbose = s.format(options.width);
      verbose.erase(0, verbose.find(' ', std::string("BLEU = ").size()) + 1);  // what follows the score
      nlohmann::ordered_json j = {{"name", "BLEU"}, {"score", detail::rounded(s.score, options.width)},
                                  {"signature", signature}, {"verbose_score", verbose}};
      add_signature_fields(j, signature);
      j["counts"] = s.matches;
      j["totals"] = s.totals;
      j["precisions"] = s.precisions;
      j["bp"] = s.brevity_penalty;
      j["ratio"] = s.ratio();
      j["sys_len"] = s.hypothesis_length;
      j["ref_len"] = s.reference_length;
      json["bleu"] = std::move(j);
    }
    if (metric == "chrf" && scores.chrf) {
      const ChrfScore& s = *scores.chrf;
      const std::string signature = s.signature(options.chrf_options());
      nlohmann::ordered_json j = {{"name", s.name()}, {"score", detail::rounded(s.score, options.width)},
                                  {"signature", signature}};
      add_signature_fields(j, signature);
      j["char_order"] = s.char_order;
      j["word_order"] = s.word_order;
      j["beta"] = s.beta;
      json["chrf"] = std::move(j);
    }
  }
  return json.dump();
}

}  // namespace nmt
