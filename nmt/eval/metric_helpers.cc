#include "nmt/eval/metric_helpers.h"

#include <cstdio>
#include <string>

#include "nmt/core/error.h"
#include "nmt/core/version.h"
#include "nmt/data/utf8.h"

namespace nmt {

// -----------------------------------------------------------------------------------------------
// Shared with chrF.

namespace detail {

std::vector<std::vector<std::size_t>> check_scorer_input(const char* metric, const std::vector<std::string>& hypotheses,
                                                         const std::vector<std::vector<std::string>>& references,
                                                         int& num_refs) {
  const std::string name(metric);
  if (references.empty()) throw DataError(name + ": no reference stream (at least one is needed)");
  for (std::size_t r = 0; r < references.size(); ++r) {
    if (references[r].size() != hypotheses.size())
      throw DataError(name + ": reference stream " + std::to_string(r + 1) + " has " +
                      std::to_string(references[r].size()) + " lines, the hypotheses have " +
                      std::to_string(hypotheses.size()));
  }
  const auto check_utf8 = [&](const std::string& text, const std::string& what, std::size_t line) {
    const std::size_t bad = find_invalid_utf8(text);
    if (bad != std::string_view::npos)
      throw DataError(name + ": " + what + " line " + std::to_string(line + 1) + ": invalid UTF-8 at byte " +
                      std::to_string(bad + 1));
  };
  std::vector<std::vector<std::size_t>> live(hypotheses.size());
  num_refs = hypotheses.empty() ? static_cast<int>(references.size()) : 0;
  for (std::size_t i = 0; i < hypotheses.size(); ++i) {
    check_utf8(hypotheses[i], "hypothesis", i);
    for (std::size_t r = 0; r < references.size(); ++r) {
      check_utf8(references[r][i], "reference stream " + std::to_string(r + 1), i);
      if (!references[r][i].empty()) live[i].push_back(r);
    }
    if (live[i].empty())
      throw DataError(name + ": line " + std::to_string(i + 1) + ": every reference is empty");
    const int count = static_cast<int>(live[i].size());
    if (i == 0) {
      num_refs = count;
    } else if (count != num_refs) {
      num_refs = -1;
    }
  }
  return live;
}

std::string fixed(double value, int decimals) {
  char buffer[512];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

double rounded(double value, int decimals) { return std::stod(fixed(value, decimals)); }

std::string signature_version() { return "nmt-" + version(); }

}  // namespace detail

}  // namespace nmt
