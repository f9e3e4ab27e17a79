#include "nmt/core/enum_names.h"

#include "nmt/core/error.h"

namespace nmt {

std::string join_choices(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

void throw_unknown_name(const std::string& what, const std::string& name, const std::vector<std::string>& names) {
  constexpr std::size_t kShown = 60;  // a megabyte of value is not echoed back
  const std::string shown = name.size() > kShown ? name.substr(0, kShown) + "..." : name;
  throw ConfigError("unknown " + what + " '" + shown + "' (expected " + join_choices(names) + ")");
}

}  // namespace nmt
