// The attention of one translation as a record: its source and target pieces and the weights of
// every target step over the source positions. nmt-translate writes it as one JSON line per input
// line (--attention-output; docs/search.md, "nmt-translate"), nmt-plot reads those lines back, and
// training hands the records of its examples to the plotter directly. The JSON form lives here
// and nowhere else:
//   {"index": I, "source": [pieces..., "</s>"], "target": [pieces..., "</s>"],
//    "attention": [[a_t,1 .. a_t,n+1] for each target step t]}
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace nmt {

struct AttentionRecord {
  std::int64_t index = 0;            // the input line, counted from 0
  std::vector<std::string> source;   // source pieces, "</s>" last
  std::vector<std::string> target;   // target pieces, "</s>" last when the hypothesis finished
  /// [target][source], rounded to 6 decimals (as written): each row sums to 1 within rounding.
  /// No rows for an empty translation, or for a record read without its weights.
  std::vector<std::vector<double>> weights;

  /// The JSON line, without its newline.
  std::string to_json() const;

  /// Parses one JSON line. `where` ("FILE line N") prefixes every DataError: not JSON, a missing or
  /// mistyped field, a row count other than the target's, a row length other than the source's, a
  /// weight outside [0, 1] or a row whose sum is not 1 (within 1e-3, or the rounding of a long row).
  static AttentionRecord from_json(const std::string& line, const std::string& where);

  /// The checks from_json makes of the numbers, on a record in memory: as many rows as target
  /// pieces (or none), each as long as the source, weights in [0, 1] summing to 1. DataError
  /// prefixed with `where`.
  void check(const std::string& where) const;
};

/// A weight as written: rounded to 6 decimals.
double rounded_weight(double weight);

/// The hard alignment: for each row, the column of its largest weight among the first `columns`
/// (ties to the first). nmt-translate's word alignments leave "</s>" out (columns = source pieces);
/// heat-maps outline the largest of all.
std::vector<std::size_t> hard_alignment(const std::vector<std::vector<double>>& weights, std::size_t columns);

}  // namespace nmt
