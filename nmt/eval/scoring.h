// Scoring text files as sacreBLEU's command line does (what nmt-score runs): read a hypothesis file
// and reference files line for line, score them with BLEU and/or chrF at sacreBLEU's defaults, and
// report the scores as text lines or as one JSON object. docs/evaluation.md describes the program.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "nmt/eval/bleu.h"
#include "nmt/eval/chrf.h"

namespace nmt {

/// What nmt-score computes and how it prints it.
struct ScoringOptions {
  std::vector<std::string> metrics = {"bleu", "chrf"};  // in output order; each "bleu" or "chrf", once
  bool lowercase = false;                                // case-insensitive scores (case:lc), both metrics
  BleuTokenizer tokenize = BleuTokenizer::tok_13a;      // BLEU tokenizer
  int width = 2;                                         // decimals of the printed scores, 0..20
  void validate() const;                                 // throws ConfigError naming the option

  BleuOptions bleu_options() const;  // sacreBLEU's defaults with lowercase and tokenize applied
  ChrfOptions chrf_options() const;  // sacreBLEU's defaults with lowercase applied
};

/// "bleu,chrf" -> {"bleu", "chrf"}: splits at commas and trims blanks (validate() checks the names).
std::vector<std::string> split_metric_list(const std::string& list);

/// A hypothesis file and its reference files, line for line.
struct ScoringInput {
  std::vector<std::string> hypotheses;
  std::vector<std::vector<std::string>> references;  // [stream][line], one stream per reference file
};

/// Every line of `path` ("-": standard input; UTF-8 checked) without its trailing whitespace
/// (Python's str.rstrip, as sacreBLEU reads files); `display_name` receives the name messages use.
std::vector<std::string> read_stripped_lines(const std::string& path, std::string& display_name);

/// Reads the hypotheses ("-": standard input) and the references as sacreBLEU's command line does:
/// every line loses its trailing whitespace (Python's str.rstrip), and per line empty references are
/// left out (at least one must remain). Throws ConfigError for no reference or standard input named
/// twice; IoError for a file that cannot be read; DataError for invalid UTF-8 ("FILE:LINE: ..."), a
/// reference whose line count differs from the hypotheses' (naming both files and counts) and a
/// line whose references are all empty (naming the line and the files).
ScoringInput read_scoring_input(const std::string& hypothesis_path, const std::vector<std::string>& reference_paths);

/// The scores of the requested metrics (unset: not requested).
struct CorpusScores {
  std::optional<BleuScore> bleu;
  std::optional<ChrfScore> chrf;
};

/// Scores `input` with the metrics in `options`. Throws ConfigError and DataError.
CorpusScores score_corpus(const ScoringInput& input, const ScoringOptions& options);

/// One line per metric, in the order of options.metrics: sacreBLEU's score text, two spaces, the
/// signature: "BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)
/// nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:nmt-0.1.0".
std::string format_scores(const CorpusScores& scores, const ScoringOptions& options);

/// One JSON object (one line) with a member per metric ("bleu", "chrf"), each holding sacreBLEU's
/// JSON fields (name, score rounded to options.width, signature, its key-value pairs, BLEU's
/// verbose_score) and the details: BLEU counts, totals, precisions, bp, ratio, sys_len, ref_len;
/// chrF char_order, word_order, beta.
std::string scores_json(const CorpusScores& scores, const ScoringOptions& options);

}  // namespace nmt
