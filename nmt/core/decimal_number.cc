#include "nmt/core/decimal_number.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "nmt/core/error.h"

namespace nmt {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Digits after an optional sign; `allow_minus` false for unsigned values.
bool integer_grammar(std::string_view text, bool allow_minus) {
  std::size_t i = 0;
  if (i < text.size() && (text[i] == '+' || (allow_minus && text[i] == '-'))) ++i;
  if (i == text.size()) return false;
  for (; i < text.size(); ++i) {
    if (!is_digit(text[i])) return false;
  }
  return true;
}

bool float_grammar(std::string_view text) {
  std::size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  std::size_t digits = 0;
  while (i < text.size() && is_digit(text[i])) ++i, ++digits;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && is_digit(text[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    std::size_t exponent_digits = 0;
    while (i < text.size() && is_digit(text[i])) ++i, ++exponent_digits;
    if (exponent_digits == 0) return false;
  }
  return i == text.size();
}

[[noreturn]] void not_a_number(std::string_view text, std::string_view what, const char* kind) {
  throw ConfigError(std::string(what) + ": " + quoted_excerpt(text) + " is not a decimal " + kind);
}

template <class T>
[[noreturn]] void out_of_range(std::string_view text, std::string_view what, T min, T max) {
  throw ConfigError(std::string(what) + " must be in [" + std::to_string(min) + ", " + std::to_string(max) +
                    "], got " + shown_text(text, 30));
}

}  // namespace

std::string quoted_excerpt(std::string_view text, std::size_t limit) {
  std::string out = "'";
  std::size_t shown = 0;
  for (char c : text) {
    if (shown == limit) break;
    if (is_control_character(c)) {
      const auto u = static_cast<unsigned char>(c);
      static const char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    } else {
      out += c;
    }
    ++shown;
  }
  if (shown < text.size()) out += "...' (" + std::to_string(text.size()) + " bytes)";
  else out += "'";
  return out;
}

std::string shown_text(std::string_view text, std::size_t limit) {
  const bool plain = text.size() <= limit && std::none_of(text.begin(), text.end(), is_control_character);
  return plain ? std::string(text) : quoted_excerpt(text, limit);
}

std::int64_t parse_decimal_integer(std::string_view text, std::string_view what, std::int64_t min, std::int64_t max) {
  if (!integer_grammar(text, true)) not_a_number(text, what, "integer");
  const std::string s(text);
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(s.c_str(), &end, 10);
  if (errno == ERANGE || value < min || value > max) out_of_range(text, what, min, max);
  return value;
}

std::uint64_t parse_decimal_unsigned(std::string_view text, std::string_view what, std::uint64_t max) {
  if (!integer_grammar(text, false)) {
    if (integer_grammar(text, true)) out_of_range(text, what, std::uint64_t{0}, max);  // negative
    not_a_number(text, what, "integer");
  }
  const std::string s(text);
  errno = 0;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(s.c_str(), &end, 10);
  if (errno == ERANGE || value > max) out_of_range(text, what, std::uint64_t{0}, max);
  return value;
}

double parse_decimal_float(std::string_view text, std::string_view what) {
  if (!float_grammar(text)) not_a_number(text, what, "number");
  const std::string s(text);
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(s.c_str(), &end);
  if (!std::isfinite(value) || (errno == ERANGE && std::fabs(value) > 1.0)) {
    throw ConfigError(std::string(what) + ": " + quoted_excerpt(text, 30) + " is beyond the range of a double");
  }
  return value;  // underflow to 0 or a subnormal is a tiny number, not an error
}

}  // namespace nmt
