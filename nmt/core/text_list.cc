#include "nmt/core/text_list.h"

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

}  // namespace nmt
