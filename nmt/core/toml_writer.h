// Writing TOML configuration files: the effective configuration that nmt-train keeps in its run
// directory and in every checkpoint. Values are written in one canonical form, which the
// programs' strict reader (nmt/core/toml_reader.h) reads back to the same values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nmt {

/// `text` as a TOML basic string: quoted, with \\ \" and control characters escaped.
std::string toml_string(std::string_view text);

/// A float as the shortest text with at least 6 significant digits that reads back as `value`
/// ("0.0003", "1e-08", "300", "0.123456789"), as C++ streams print the usual ones.
std::string toml_float(double value);

/// Key-value lines in sections: top-level keys first, then one [section] per name before the
/// key's first dot, in the order the sections first appear.
class TomlWriter {
 public:
  /// `dotted_key`: "train.max-steps" or "seed"; `value`: already TOML (toml_string, a number, true).
  void add(const std::string& dotted_key, std::string value);
  /// A table of the array of tables `dotted_key` ("data.corpus": [[data.corpus]]), written after
  /// its section's keys; `entries` as add()'s values.
  void add_table(const std::string& dotted_key, std::vector<std::pair<std::string, std::string>> entries);
  /// The whole file.
  std::string text() const;
  /// Each section's "key = value" lines, the top-level keys first (section ""), as text() has them.
  std::vector<std::pair<std::string, std::string>> section_texts() const;

 private:
  std::vector<std::pair<std::string, std::string>> top_;
  using Entries = std::vector<std::pair<std::string, std::string>>;
  struct Section {
    std::string name;
    Entries entries;
    std::vector<std::pair<std::string, Entries>> tables;  // (array name after the section's, its table)
  };
  Section& section(const std::string& name);
  std::vector<Section> sections_;
};

}  // namespace nmt
