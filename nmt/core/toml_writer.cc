#include "nmt/core/toml_writer.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

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

TomlWriter::Section& TomlWriter::section(const std::string& name) {
  auto it = std::find_if(sections_.begin(), sections_.end(), [&](const Section& s) { return s.name == name; });
  if (it == sections_.end()) it = sections_.insert(sections_.end(), Section{name, {}, {}});
  return *it;
}

void TomlWriter::add(const std::string& dotted_key, std::string value) {
  const auto dot = dotted_key.find('.');
  if (dot == std::string::npos) {
    top_.emplace_back(dotted_key, std::move(value));
    return;
  }
  section(dotted_key.substr(0, dot)).entries.emplace_back(dotted_key.substr(dot + 1), std::move(value));
}

void TomlWriter::add_table(const std::string& dotted_key, Entries entries) {
  const auto dot = dotted_key.find('.');
  if (dot == std::string::npos) throw std::logic_error("TomlWriter::add_table: '" + dotted_key + "' has no section");
  section(dotted_key.substr(0, dot)).tables.emplace_back(dotted_key.substr(dot + 1), std::move(entries));
}

std::vector<std::pair<std::string, std::string>> TomlWriter::section_texts() const {
  const auto lines_of = [](const Entries& entries) {
    std::string out;
    for (const auto& [key, value] : entries) out += key + " = " + value + "\n";
    return out;
  };
  std::vector<std::pair<std::string, std::string>> out = {{"", lines_of(top_)}};
  for (const Section& s : sections_) {
    std::string text = lines_of(s.entries);
    for (const auto& [array, entries] : s.tables) text += "\n[[" + s.name + "." + array + "]]\n" + lines_of(entries);
    out.emplace_back(s.name, text);
  }
  return out;
}

std::string TomlWriter::text() const {
  std::string out;
  for (const auto& [name, lines] : section_texts()) out += name.empty() ? lines : "\n[" + name + "]\n" + lines;
  return out;
}

}  // namespace nmt
