// The strict reader of TOML configuration: the programs' files, and the training configuration a
// checkpoint carries (nmt-serve reads its data files' names): the subset of TOML that options
// need (tables of key = value with one string, integer, float or boolean each, and arrays of such
// tables, [[data.corpus]]), with errors that name the file, the line and what is wrong. Arrays of
// values, inline tables (but for parse_toml_inline_table), nested tables, multi-line strings,
// duplicate keys, control characters and invalid UTF-8 are refused, never guessed at.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace nmt {

struct TomlEntry {
  /// table: the header [[NAME]] of a table of an array of tables (key NAME, no value), so that an
  /// empty table is seen too; its keys follow as entries "NAME.KEY" with the same `table`.
  enum class Kind { string, integer, floating, boolean, table };
  std::string key;    // dotted: "train.max-steps" for max-steps under [train]
  Kind kind = Kind::string;
  std::string value;  // strings decoded (no quotes, escapes resolved); numbers and booleans as written
  int line = 0;
  int table = -1;     // under [[NAME]]: the table's place in its array, 0-based; -1 elsewhere
};

/// "a string", "an integer", ...
std::string to_string(TomlEntry::Kind kind);

/// Parses `text` (the content of `source`, used in messages) into entries in file order.
/// Throws nmt::ConfigError "SOURCE:LINE: ..." on the first problem. A UTF-8 byte-order mark is skipped.
std::vector<TomlEntry> parse_toml_config(std::string_view text, const std::string& source);

/// Parses one TOML inline table, `{key = value, ...}` (the braces may be left out), on one line:
/// the keys as written, line 1, no `table`. Values are as parse_toml_config's. Throws
/// nmt::ConfigError "SOURCE: ..." (a bad key, value or separator, a key set twice).
std::vector<TomlEntry> parse_toml_inline_table(std::string_view text, const std::string& source);

/// The entries of nmt-train's effective configuration (a checkpoint's training_config), or none
/// when it is empty or not nmt-train's (a scripted model's, an older writer's).
std::vector<TomlEntry> training_config_entries(const std::string& training_config);

}  // namespace nmt
