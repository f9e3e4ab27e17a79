// Scores by sentence length: the lines of a scored corpus grouped by the length in words (Python's
// str.split()) of their source or of their first non-empty reference, each group scored as a
// corpus with the same metrics and options (what `nmt-score --by-length` prints).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nmt/core/enum_names.h"
#include "nmt/eval/scoring.h"

namespace nmt {

enum class LengthOf { source, reference };
const EnumNames<LengthOf>& enum_names(LengthOf);  // source, reference

/// "10,20,30" -> {10, 20, 30}: strictly increasing positive integers. ConfigError naming the
/// option (length-edges) and the entry otherwise.
std::vector<std::int64_t> parse_length_edges(const std::string& list);

struct LengthBucket {
  std::int64_t low = 0;    // words, inclusive
  std::int64_t high = -1;  // words, exclusive; -1: no upper bound
  std::size_t sentences = 0;
  CorpusScores scores;     // the metrics' scores of the bucket's lines; unset for an empty bucket
  /// "0-9", "10-19", ..., "50+".
  std::string label() const;
};

/// Buckets [0, e_1), [e_1, e_2), ..., [e_k, inf) over `input`'s lines. `sources` (line-parallel to
/// the hypotheses) is needed for LengthOf::source. Throws ConfigError (options) and DataError (a
/// source count that differs from the hypotheses').
std::vector<LengthBucket> score_by_length(const ScoringInput& input, const std::vector<std::string>& sources,
                                          const std::vector<std::int64_t>& edges, LengthOf of,
                                          const ScoringOptions& options);

/// Several systems (hypothesis files of the same lines) bucketed alike, to compare by length.
struct SystemBuckets {
  std::string label;
  std::vector<LengthBucket> buckets;
};

/// Throws ConfigError unless every system has the same buckets (edges and sentence counts), and
/// there is at least one.
void check_same_buckets(const std::vector<SystemBuckets>& systems);

/// A table: one line per bucket with its label, sentence count and each metric's score.
std::string format_length_buckets(const std::vector<LengthBucket>& buckets, LengthOf of, const ScoringOptions& options);
/// The same with a column per metric and system ("BLEU label"); one system prints as above.
/// Throws ConfigError when the systems' buckets differ.
std::string format_length_buckets(const std::vector<SystemBuckets>& systems, LengthOf of, const ScoringOptions& options);

/// One JSON object: {"length_of", "buckets": [{"label", "low", "high" (null: none), "sentences",
/// "bleu", "chrf" (scores rounded to options.width; null for an empty bucket)}], "signatures"}.
std::string length_buckets_json(const std::vector<LengthBucket>& buckets, LengthOf of, const ScoringOptions& options);
/// Several systems: {"length_of", "systems": [{"label", "buckets": [...]}], "signatures"}; one
/// system prints as above.
std::string length_buckets_json(const std::vector<SystemBuckets>& systems, LengthOf of, const ScoringOptions& options);

}  // namespace nmt
