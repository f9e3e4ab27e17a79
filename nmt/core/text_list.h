// Option values that are lists: "a,b,c" split at a separator.
#pragma once

#include <string>
#include <vector>

namespace nmt {

/// The pieces of `list` between separators, as written: empty pieces included ("a,,b" gives three,
/// "" gives one empty piece), so that each option's parser decides what an empty entry means.
std::vector<std::string> split_list(const std::string& list, char separator = ',');

/// Throws ConfigError "OPTION: 'x' is given twice" for a repeated entry (labels name one system each).
void require_distinct(const std::vector<std::string>& items, const std::string& option);

}  // namespace nmt
