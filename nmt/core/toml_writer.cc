#include "nmt/core/toml_writer.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace nmt {

std::string toml_string(std::string_view text) {
  static const char* hex = "0123456789ABCDEF";
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
          out += "\\u00";
          out += hex[(static_cast<unsigned char>(c) >> 4) & 15];
          out += hex[static_cast<unsigned char>(c) & 15];
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string toml_float(double value) {
  char text[40];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    if (std::strtod(text, nullptr) == value) break;
  }
  return text;
}

void TomlWriter::add(const std::string& dotted_key, std::string value) {
  const auto dot = dotted_key.find('.');
  if (dot == std::string::npos) {
    top_.emplace_back(dotted_key, std::move(value));
    return;
  }
  const std::string section = dotted_key.substr(0, dot);
  auto it = std::find_if(sections_.begin(), sections_.end(), [&](const auto& s) { return s.first == section; });
  if (it == sections_.end()) it = sections_.insert(sections_.end(), {section, {}});
  it->second.emplace_back(dotted_key.substr(dot + 1), std::move(value));
}

std::vector<std::pair<std::string, std::string>> TomlWriter::section_texts() const {
  const auto lines_of = [](const std::vector<std::pair<std::string, std::string>>& entries) {
    std::string out;
    for (const auto& [key, value] : entries) out += key + " = " + value + "\n";
    return out;
  };
  std::vector<std::pair<std::string, std::string>> out = {{"", lines_of(top_)}};
  for (const auto& [name, entries] : sections_) out.emplace_back(name, lines_of(entries));
  return out;
}

std::string TomlWriter::text() const {
  std::string out;
  for (const auto& [name, lines] : section_texts()) out += name.empty() ? lines : "\n[" + name + "]\n" + lines;
  return out;
}

}  // namespace nmt
