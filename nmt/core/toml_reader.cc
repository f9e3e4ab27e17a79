#include "nmt/core/toml_reader.h"

#include <cctype>
#include <cstdint>
#include <map>

#include "nmt/core/decimal_number.h"
#include "nmt/core/error.h"
#include "nmt/data/utf8.h"

namespace nmt {
namespace {

bool is_bare_key_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }

// One line being read, with the position of the next character.
class LineCursor {
 public:
  LineCursor(std::string_view line, const std::string& where) : line_(line), where_(where) {}

  [[noreturn]] void fail(const std::string& what) const { throw ConfigError(where_ + ": " + what); }
  void skip_space() {
    while (pos_ < line_.size() && (line_[pos_] == ' ' || line_[pos_] == '\t')) ++pos_;
  }
  bool at_end() const { return pos_ >= line_.size(); }
  char peek() const { return at_end() ? '\0' : line_[pos_]; }
  bool starts_with(std::string_view s) const { return line_.substr(pos_).substr(0, s.size()) == s; }
  bool consume(char c) {
    skip_space();
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  // After a value or a header: only spaces and a comment may follow.
  void expect_line_end() {
    skip_space();
    if (!at_end() && peek() != '#') fail("unexpected " + quoted_excerpt(line_.substr(pos_)) + " after the value");
  }

  // key = bare | "basic" | 'literal', joined by dots.
  std::string key() {
    std::string key;
    while (true) {
      skip_space();
      if (peek() == '"' || peek() == '\'') {
        key += quoted();
      } else {
        const std::size_t start = pos_;
        while (!at_end() && is_bare_key_char(peek())) ++pos_;
        if (pos_ == start) fail(at_end() ? "a key is missing" : "'" + std::string(1, peek()) + "' cannot start a key");
        key += line_.substr(start, pos_ - start);
      }
      skip_space();
      if (peek() != '.') return key;
      ++pos_;
      key += '.';
    }
  }

  TomlEntry::Kind value(std::string& out) {
    skip_space();
    if (at_end() || peek() == '#') fail("the value is missing");
    if (starts_with("\"\"\"") || starts_with("'''")) fail("multi-line strings are not accepted here");
    if (peek() == '"' || peek() == '\'') {
      out = quoted();
      return TomlEntry::Kind::string;
    }
    if (peek() == '[') fail("arrays are not accepted: each option takes one value");
    if (peek() == '{') fail("inline tables are not accepted: use a [section]");
    const std::size_t start = pos_;
    while (!at_end() && peek() != ' ' && peek() != '\t' && peek() != '#') ++pos_;
    out = std::string(line_.substr(start, pos_ - start));
    if (out == "true" || out == "false") return TomlEntry::Kind::boolean;
    if (is_integer(out)) return TomlEntry::Kind::integer;
    if (is_float(out)) return TomlEntry::Kind::floating;
    if (out.size() > 60) fail(quoted_excerpt(out) + " is not a TOML value (a string needs quotes)");
    fail("'" + out + "' is not a TOML value (strings need quotes: \"" + out + "\")");
  }

 private:
  static bool digits(std::string_view s) {  // 1_000: underscores only between digits
    if (s.empty() || s.front() == '_' || s.back() == '_') return false;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '_' ? s[i + 1] == '_' : !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    }
    return true;
  }
  static std::string_view unsigned_part(std::string_view s) {
    return !s.empty() && (s[0] == '+' || s[0] == '-') ? s.substr(1) : s;
  }
  static bool is_integer(std::string_view s) {
    const std::string_view u = unsigned_part(s);
    return digits(u) && (u.size() == 1 || u[0] != '0');  // no leading zeros
  }
  static bool is_float(std::string_view s) {
    const std::string_view u = unsigned_part(s);
    if (u == "inf" || u == "nan") return true;
    const std::size_t e = u.find_first_of("eE");
    const std::string_view mantissa = u.substr(0, e);
    const std::size_t dot = mantissa.find('.');
    const std::string_view whole = mantissa.substr(0, dot);
    if (!digits(whole) || (whole.size() > 1 && whole[0] == '0')) return false;
    if (dot != std::string_view::npos && !digits(mantissa.substr(dot + 1))) return false;
    if (e != std::string_view::npos && !digits(unsigned_part(u.substr(e + 1)))) return false;
    return dot != std::string_view::npos || e != std::string_view::npos;
  }

  void append_code_point(std::string& out, std::uint32_t code) {
    if (code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) fail("escape \\u" + std::to_string(code) + " is not a character");
    append_utf8(out, static_cast<char32_t>(code));
  }

  std::string quoted() {
    const char quote = line_[pos_++];
    std::string out;
    while (true) {
      if (at_end()) fail(std::string("the string has no closing ") + quote);
      const char c = line_[pos_++];
      if (c == quote) {
        // A NUL would silently end a path at it (the library refuses other control characters
        // in paths and names, naming the option).
        if (out.find('\0') != std::string::npos) fail("U+0000 (NUL) in a string: paths and names cannot hold one");
        return out;
      }
      if (c != '\\' || quote == '\'') {
        out += c;
        continue;
      }
      if (at_end()) fail("the string ends in a backslash");
      const char escape = line_[pos_++];
      switch (escape) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u':
        case 'U': {
          const std::size_t n = escape == 'u' ? 4 : 8;
          if (pos_ + n > line_.size()) fail("a \\" + std::string(1, escape) + " escape needs " + std::to_string(n) + " hex digits");
          std::uint32_t code = 0;
          for (std::size_t i = 0; i < n; ++i) {
            const char h = line_[pos_++];
            if (!std::isxdigit(static_cast<unsigned char>(h))) fail("'" + std::string(1, h) + "' is not a hex digit");
            code = code * 16 + static_cast<std::uint32_t>(std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : (std::tolower(h) - 'a' + 10));
          }
          append_code_point(out, code);
          break;
        }
        default: fail("unknown escape \\" + std::string(1, escape) + " in a string");
      }
    }
  }

  std::string_view line_;
  const std::string& where_;
  std::size_t pos_ = 0;
};

}  // namespace

std::string to_string(TomlEntry::Kind kind) {
  switch (kind) {
    case TomlEntry::Kind::string: return "a string";
    case TomlEntry::Kind::integer: return "an integer";
    case TomlEntry::Kind::floating: return "a number";
    case TomlEntry::Kind::boolean: return "true or false";
  }
  return "a value";
}

std::vector<TomlEntry> parse_toml_config(std::string_view text, const std::string& source) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a byte-order mark some editors write
  const std::size_t invalid = find_invalid_utf8(text);
  if (invalid != std::string_view::npos) {
    throw ConfigError(source + ": not a text file (invalid UTF-8 at byte " + std::to_string(invalid) + ")");
  }
  std::vector<TomlEntry> entries;
  std::map<std::string, int> seen;  // key -> line
  std::string section;
  int line_number = 0;
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::string where = source + ":" + std::to_string(line_number);
    for (const char c : line) {
      if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7F) {
        throw ConfigError(where + ": not a text file (control character " + std::to_string(static_cast<int>(c)) + ")");
      }
    }
    LineCursor cursor(line, where);
    cursor.skip_space();
    if (cursor.at_end() || cursor.peek() == '#') continue;
    if (cursor.starts_with("[[")) cursor.fail("arrays of tables are not accepted");
    if (cursor.consume('[')) {
      section = cursor.key();
      if (!cursor.consume(']')) cursor.fail("the section name has no closing ]");
      if (section.find('.') != std::string::npos) cursor.fail("nested sections like [" + shown_text(section) + "] are not options");
      if (seen.count("[" + section + "]")) {
        cursor.fail("section [" + shown_text(section) + "] appears twice (first on line " + std::to_string(seen["[" + section + "]"]) + ")");
      }
      seen["[" + section + "]"] = line_number;
      cursor.expect_line_end();
      continue;
    }
    TomlEntry entry;
    entry.line = line_number;
    entry.key = cursor.key();
    if (!section.empty()) entry.key = section + "." + entry.key;
    if (!cursor.consume('=')) cursor.fail("expected '=' after the key " + quoted_excerpt(entry.key));
    entry.kind = cursor.value(entry.value);
    cursor.expect_line_end();
    const auto [it, inserted] = seen.emplace(entry.key, line_number);
    if (!inserted) {
      cursor.fail("key " + quoted_excerpt(entry.key) + " is set twice (first on line " + std::to_string(it->second) + ")");
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

}  // namespace nmt
