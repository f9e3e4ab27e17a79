#include "nmt/search/search_options.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "nmt/core/error.h"
#include "nmt/search/search_option_table.h"

namespace nmt {
namespace {

std::string str(double v) {
  std::ostringstream out;  // 2, 0.6, 1e+30: short, and exact enough for a message
  out << v;
  return out.str();
}

}  // namespace

const EnumNames<LengthPenalty>& enum_names(LengthPenalty) {
  static const EnumNames<LengthPenalty> names(
      "length penalty",
      {{LengthPenalty::none, "none"}, {LengthPenalty::average, "average"}, {LengthPenalty::gnmt, "gnmt"}});
  return names;
}

void SearchOptions::validate() const {
  require_option(std::isfinite(max_length_a) && max_length_a >= 0 && max_length_a <= kMaxLengthA, "max-length-a",
          "in [0, " + str(kMaxLengthA) + "]", str(max_length_a));
  require_option(max_length_b >= 0 && max_length_b <= kMaxLengthB, "max-length-b", "in [0, " + std::to_string(kMaxLengthB) + "]",
          std::to_string(max_length_b));
  require_option(min_length >= 0, "min-length", ">= 0", std::to_string(min_length));
  require_option(beam_size >= 1, "beam-size", ">= 1", std::to_string(beam_size));
  require_option(n_best >= 1 && n_best <= beam_size, "n-best", "in [1, beam size " + std::to_string(beam_size) + "]",
          std::to_string(n_best));
  // alpha >= 0 keeps lp non-decreasing in |Y| and beta >= 0 keeps cp <= 0: beam search's stopping
  // bound relies on both.
  require_option(std::isfinite(length_alpha) && length_alpha >= 0, "length-alpha", ">= 0", str(length_alpha));
  require_option(std::isfinite(coverage_beta) && coverage_beta >= 0, "coverage-beta", ">= 0", str(coverage_beta));
  require_option(no_repeat_ngram >= 0, "no-repeat-ngram", ">= 0 (0: off)", std::to_string(no_repeat_ngram));
}

void SearchOptions::require_attention_if_used(bool model_has_attention) const {
  if (model_has_attention) return;
  const std::string why = " needs attention weights, and the model has attention = none";
  if (coverage_beta > 0) throw ConfigError("coverage-beta" + why);
  if (hard_attention) throw ConfigError("hard-attention" + why);
  if (keep_attention) throw ConfigError("attention-output and alignment-output need attention weights, and the model "
                                        "has attention = none");
}

bool operator==(const SearchOptions& a, const SearchOptions& b) {
  bool equal = true;
  for_each_search_option([&](const SearchOptionDoc&, auto member) { equal = equal && a.*member == b.*member; });
  return equal;
}

std::int64_t SearchOptions::max_length(std::int64_t source_length) const {
  // In double, clamped before the conversion: a*n + b may exceed any integer type.
  const double limit = std::floor(max_length_a * static_cast<double>(source_length)) + static_cast<double>(max_length_b);
  return static_cast<std::int64_t>(std::clamp(limit, 1.0, static_cast<double>(kMaxTargetLength)));
}

}  // namespace nmt
