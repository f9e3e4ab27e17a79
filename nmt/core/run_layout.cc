#include "nmt/core/run_layout.h"

#include <cstdio>

namespace nmt {

std::string step_stem(std::int64_t step) {
  char stem[32];
  std::snprintf(stem, sizeof stem, "step-%08lld", static_cast<long long>(step));
  return stem;
}

std::optional<std::int64_t> RunLayout::step_of(const std::string& file_name, const std::string& extension) {
  const std::string prefix = "step-";
  if (file_name.size() < prefix.size() + 8 + extension.size() || file_name.compare(0, prefix.size(), prefix) != 0 ||
      file_name.compare(file_name.size() - extension.size(), extension.size(), extension) != 0) {
    return std::nullopt;
  }
  const std::string digits = file_name.substr(prefix.size(), file_name.size() - prefix.size() - extension.size());
  if (digits.size() > 18) return std::nullopt;  // beyond int64: no step of ours
  for (const char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  return std::stoll(digits);
}

}  // namespace nmt
