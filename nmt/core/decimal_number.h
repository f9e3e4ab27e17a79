// The one grammar for the numbers people type: options on the command line, environment variables,
// lists inside option values. Decimal only: a leading zero is a decimal digit ("010" is ten, never
// octal eight), "0x10" and "1_000" are not numbers here (TOML files have their own, stricter rules
// and are read by nmt/core/toml_reader.cc), and a value beyond the type is refused, never
// wrapped, saturated or read as "no limit".
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace nmt {

/// [+-]?[0-9]+ within [min, max]. Throws ConfigError "WHAT: 'TEXT' is not a decimal integer" or
/// "WHAT must be in [MIN, MAX], got TEXT" (TEXT cut to a readable length).
std::int64_t parse_decimal_integer(std::string_view text, std::string_view what,
                                   std::int64_t min = std::numeric_limits<std::int64_t>::min(),
                                   std::int64_t max = std::numeric_limits<std::int64_t>::max());

/// As parse_decimal_integer for unsigned values: [+]?[0-9]+ up to `max`.
std::uint64_t parse_decimal_unsigned(std::string_view text, std::string_view what,
                                     std::uint64_t max = std::numeric_limits<std::uint64_t>::max());

/// [+-]?(D+[.D*]|.D+)([eE][+-]?D+)? and finite as a double ("1e999" is refused). No hexadecimal
/// floats, no inf or nan, no spaces.
double parse_decimal_float(std::string_view text, std::string_view what);

/// `text` for an error message: quoted, control characters escaped, and cut after `limit`
/// characters with the size said ("'aaaa...' (1048576 bytes)"), so that a message stays one line.
std::string quoted_excerpt(std::string_view text, std::size_t limit = 60);

/// `text` as written when it is at most `limit` characters and has no control character, else
/// quoted_excerpt(text, limit): for messages that show short values bare.
std::string shown_text(std::string_view text, std::size_t limit = 60);

/// A byte below 0x20, or DEL: what paths, names and one-line messages cannot hold.
inline bool is_control_character(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7f;
}

}  // namespace nmt
