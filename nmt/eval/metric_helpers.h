// What the scorers (BLEU, chrF) share: checking their input, sacreBLEU's number format and the
// toolkit's version field in signatures.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace nmt {

namespace detail {

/// Checks a scorer's input (see bleu_statistics) and returns, per sentence, the indices of its
/// non-empty reference streams; `num_refs` receives their common count, or -1 when it varies.
/// `metric` starts the error messages ("BLEU", "chrF").
std::vector<std::vector<std::size_t>> check_scorer_input(
    const char* metric, const std::vector<std::string>& hypotheses,
    const std::vector<std::vector<std::string>>& references, int& num_refs);

/// Python's `format(value, f".{decimals}f")` (correctly rounded, as printf).
std::string fixed(double value, int decimals);

/// sacreBLEU's float(f"{score:.{decimals}f}"): the score as JSON output rounds it.
double rounded(double value, int decimals);

/// The "version:..." field of the toolkit's signatures: "nmt-" + nmt::version().
std::string signature_version();

}  // namespace detail

}  // namespace nmt
