#include "nmt/eval/tokenizer_13a.h"

#include "nmt/eval/unicode_text.h"

namespace nmt {
namespace {

// ---------------------------------------------------------------------------------------------
// 13a tokenization.

void replace_all(std::string& s, std::string_view from, std::string_view to) {
  std::string out;
  std::size_t start = 0, pos;
  while ((pos = s.find(from, start)) != std::string::npos) {
    out.append(s, start, pos - start);
    out += to;
    start = pos + from.size();
  }
  if (start == 0) return;
  out.append(s, start, std::string::npos);
  s.swap(out);
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_period_or_comma(char c) { return c == '.' || c == ','; }

// The class [\{-\~\[-\` -\&\(-\+\:-\@\/] of the first regular expression: { | } ~ [ \ ] ^ _ `
// space ! " # $ % & ( ) * + : ; < = > ? @ /
bool is_13a_symbol(char c) {
  return (c >= '{' && c <= '~') || (c >= '[' && c <= '`') || (c >= ' ' && c <= '&') ||
         (c >= '(' && c <= '+') || (c >= ':' && c <= '@') || c == '/';
}

// One left-to-right pass of a two-character regular expression `(A)(B)`, replaced by
// `before A middle B after`, matches never overlapping (Python's re.sub). Working on UTF-8 bytes
// gives the same result as on code points: one side of every pattern is an ASCII character (a
// period, comma, dash or digit), and "any but a digit" on the other side matches the byte of a
// multi-byte character next to it (its last or first byte) exactly when it matches the character.
template <typename First, typename Second>
std::string substitute_pairs(const std::string& s, First first, Second second, const char* before,
                             const char* middle, const char* after) {
  std::string out;
  out.reserve(s.size() + s.size() / 4);
  std::size_t i = 0;
  while (i < s.size()) {
    if (i + 1 < s.size() && first(s[i]) && second(s[i + 1])) {
      out += before;
      out += s[i];
      out += middle;
      out += s[i + 1];
      out += after;
      i += 2;
    } else {
      out += s[i++];
    }
  }
  return out;
}

}  // namespace

// -----------------------------------------------------------------------------------------------
// 13a.

std::string tokenize_13a(std::string_view line) {
  // Language-independent part, in sacreBLEU's order (each replacement sees the previous ones).
  std::string s(line);
  replace_all(s, "<skipped>", "");
  replace_all(s, "-\n", "");
  replace_all(s, "\n", " ");
  replace_all(s, "&quot;", "\"");
  replace_all(s, "&amp;", "&");
  replace_all(s, "&lt;", "<");
  replace_all(s, "&gt;", ">");
  s = " " + s + " ";

  // Language-dependent part: the four regular expressions of sacreBLEU's TokenizerRegexp.
  std::string spaced;
  spaced.reserve(s.size() * 2);
  for (const char c : s) {  // ([\{-\~\[-\` -\&\(-\+\:-\@\/]) -> " \1 "
    if (is_13a_symbol(c)) {
      spaced += ' ';
      spaced += c;
      spaced += ' ';
    } else {
      spaced += c;
    }
  }
  const auto any_but_digit = [](char c) { return !is_digit(c); };
  const auto dash = [](char c) { return c == '-'; };
  // ([^0-9])([\.,]) -> "\1 \2 ": period and comma unless preceded by a digit
  s = substitute_pairs(spaced, any_but_digit, is_period_or_comma, "", " ", " ");
  // ([\.,])([^0-9]) -> " \1 \2": period and comma unless followed by a digit
  s = substitute_pairs(s, is_period_or_comma, any_but_digit, " ", " ", "");
  // ([0-9])(-) -> "\1 \2 ": dash after a digit
  s = substitute_pairs(s, is_digit, dash, "", " ", " ");

  std::string out;
  out.reserve(s.size());
  for (const auto token : split_whitespace(s)) {
    if (!out.empty()) out += ' ';
    out += token;
  }
  return out;
}

}  // namespace nmt
