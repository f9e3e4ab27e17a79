// The strict reader of TOML configuration: the programs' files, and the training configuration a
// checkpoint carries (nmt-serve reads its data files' names): the subset of TOML that options
// need (tables of key = value with one string, integer, float or boolean each), with errors that
// name the file, the line and what is wrong. Arrays, inline tables, nested tables, multi-line
// strings, duplicate keys, control characters and invalid UTF-8 are refused, never guessed at.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace nmt {

struct TomlEntry {
  enum class Kind { string, integer, floating, boolean };
  std::string key;    // dotted: "train.max-steps" for max-steps under [train]
  Kind kind = Kind::string;
  std::string value;  // strings decoded (no quotes, escapes resolved); numbers and booleans as written
  int line = 0;
};

/// "a string", "an integer", ...
std::string to_string(TomlEntry::Kind kind);

/// Parses `text` (the content of `source`, used in messages) into entries in file order.
/// Throws nmt::ConfigError "SOURCE:LINE: ..." on the first problem. A UTF-8 byte-order mark is skipped.
std::vector<TomlEntry> parse_toml_config(std::string_view text, const std::string& source);

}  // namespace nmt
