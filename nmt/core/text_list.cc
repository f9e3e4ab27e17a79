#include "nmt/core/text_list.h"

#include <set>

#include "nmt/core/decimal_number.h"
#include "nmt/core/error.h"

namespace nmt {

std::vector<std::string> split_list(const std::string& list, char separator) {
  std::vector<std::string> pieces;
  std::size_t begin = 0;
  for (std::size_t end; (end = list.find(separator, begin)) != std::string::npos; begin = end + 1) {
    pieces.push_back(list.substr(begin, end - begin));
  }
  pieces.push_back(list.substr(begin));
  return pieces;
}

void require_distinct(const std::vector<std::string>& items, const std::string& option) {
  std::set<std::string> seen;
  for (const std::string& item : items) {
    if (!seen.insert(item).second) throw ConfigError(option + ": " + quoted_excerpt(item) + " is given twice");
  }
}

}  // namespace nmt
