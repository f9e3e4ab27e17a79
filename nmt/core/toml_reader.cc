#include "nmt/core/toml_reader.h"

#include <algorithm>
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
  void advance(std::size_t n) { pos_ = std::min(line_.size(), pos_ + n); }
  std::size_t remaining() const { return line_.size() - pos_; }
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

  // A value; a bare one (number, boolean) ends at a space, a '#' or a character of `stops`.
  TomlEntry::Kind value(std::string& out, std::string_view stops = "") {
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
    while (!at_end() && peek() != ' ' && peek() != '\t' && peek() != '#' && stops.find(peek()) == std::string_view::npos) {
      ++pos_;
    }
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
    case TomlEntry::Kind::table: return "a table";
  }
  return "a value";
}

namespace {

// The state of a file being read: the entries so far, what each key, section and array of tables
// was first seen on, and where the lines now go.
class ConfigReader {
 public:
  void line(LineCursor& cursor, int line_number) {
    if (cursor.starts_with("[[")) {  // TOML: no space inside [[ and ]]
      cursor.advance(2);
      return array_header(cursor, line_number);
    }
    if (cursor.consume('[')) return section_header(cursor, line_number);
    key_value(cursor, line_number);
  }
  std::vector<TomlEntry> entries;

 private:
  // [[NAME]]: the next table of the array NAME; its keys are NAME.KEY. The header is an entry too.
  void array_header(LineCursor& cursor, int line_number) {
    const std::string name = cursor.key();
    cursor.skip_space();
    if (!cursor.starts_with("]]")) cursor.fail("the array-of-tables name has no closing ]]");
    cursor.advance(2);
    if (seen_.count(name) > 0) {
      cursor.fail("[[" + shown_text(name) + "]] names a key already set (on line " + std::to_string(seen_[name]) + ")");
    }
    if (seen_.count("[" + name + "]") > 0) cursor.fail("[[" + shown_text(name) + "]] names a [section]");
    table_ = table_counts_[name]++;
    section_ = name;
    seen_["[[" + name + "]]"] = line_number;
    cursor.expect_line_end();
    TomlEntry header;
    header.key = name;
    header.kind = TomlEntry::Kind::table;
    header.line = line_number;
    header.table = table_;
    entries.push_back(std::move(header));
  }

  void section_header(LineCursor& cursor, int line_number) {
    section_ = cursor.key();
    table_ = -1;
    if (!cursor.consume(']')) cursor.fail("the section name has no closing ]");
    if (section_.find('.') != std::string::npos) {
      cursor.fail("nested sections like [" + shown_text(section_) + "] are not options");
    }
    const std::string header = "[" + section_ + "]";
    if (seen_.count("[" + header + "]")) {
      cursor.fail(shown_text(header) + " names an array of tables (on line " + std::to_string(seen_["[" + header + "]"]) + ")");
    }
    if (seen_.count(header)) {
      cursor.fail("section " + shown_text(header) + " appears twice (first on line " + std::to_string(seen_[header]) + ")");
    }
    seen_[header] = line_number;
    cursor.expect_line_end();
  }

  void key_value(LineCursor& cursor, int line_number) {
    TomlEntry entry;
    entry.line = line_number;
    entry.key = cursor.key();
    if (!section_.empty()) entry.key = section_ + "." + entry.key;
    entry.table = table_;
    if (!cursor.consume('=')) cursor.fail("expected '=' after the key " + quoted_excerpt(entry.key));
    entry.kind = cursor.value(entry.value);
    cursor.expect_line_end();
    if (table_ < 0 && seen_.count("[[" + entry.key + "]]") > 0) {
      cursor.fail("key " + quoted_excerpt(entry.key) + " is also an array of tables (on line " +
                  std::to_string(seen_["[[" + entry.key + "]]"]) + ")");
    }
    // Keys of different tables of one array are different keys.
    const std::string unique = table_ < 0 ? entry.key : entry.key + "#" + std::to_string(table_);
    const auto [it, inserted] = seen_.emplace(unique, line_number);
    if (!inserted) {
      cursor.fail("key " + quoted_excerpt(entry.key) + " is set twice (first on line " + std::to_string(it->second) + ")");
    }
    entries.push_back(std::move(entry));
  }

  std::map<std::string, int> seen_;          // key, [section] or [[array]] -> its first line
  std::string section_;
  int table_ = -1;                           // the current [[array]] table's index, or -1
  std::map<std::string, int> table_counts_;  // array of tables -> tables so far
};

}  // namespace

std::vector<TomlEntry> parse_toml_config(std::string_view text, const std::string& source) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a byte-order mark some editors write
  const std::size_t invalid = find_invalid_utf8(text);
  if (invalid != std::string_view::npos) {
    throw ConfigError(source + ": not a text file (invalid UTF-8 at byte " + std::to_string(invalid) + ")");
  }
  ConfigReader reader;
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
    reader.line(cursor, line_number);
  }
  return std::move(reader.entries);
}

std::vector<TomlEntry> parse_toml_inline_table(std::string_view text, const std::string& source) {
  const std::size_t invalid = find_invalid_utf8(text);
  if (invalid != std::string_view::npos) {
    throw ConfigError(source + ": invalid UTF-8 at byte " + std::to_string(invalid));
  }
  if (text.find('\n') != std::string_view::npos) throw ConfigError(source + ": an inline table is one line");
  LineCursor cursor(text, source);
  cursor.skip_space();
  const bool braces = cursor.consume('{');
  std::vector<TomlEntry> entries;
  std::map<std::string, bool> seen;
  cursor.skip_space();
  if (!(braces && cursor.peek() == '}') && !(!braces && cursor.at_end())) {
    while (true) {
      TomlEntry entry;
      entry.line = 1;
      entry.key = cursor.key();
      if (!cursor.consume('=')) cursor.fail("expected '=' after the key " + quoted_excerpt(entry.key));
      entry.kind = cursor.value(entry.value, ",}");
      if (!seen.emplace(entry.key, true).second) cursor.fail("key " + quoted_excerpt(entry.key) + " is set twice");
      entries.push_back(std::move(entry));
      if (!cursor.consume(',')) break;
    }
  }
  if (braces && !cursor.consume('}')) cursor.fail("the inline table has no closing }");
  cursor.skip_space();
  if (!cursor.at_end()) cursor.fail("unexpected " + quoted_excerpt(text.substr(text.size() - cursor.remaining())) + " after the table");
  return entries;
}

std::vector<TomlEntry> training_config_entries(const std::string& training_config) {
  if (training_config.empty()) return {};
  try {
    return parse_toml_config(training_config, "the checkpoint's training configuration");
  } catch (const ConfigError&) {
    return {};  // not nmt-train's configuration: nothing to be had from it
  }
}

}  // namespace nmt
