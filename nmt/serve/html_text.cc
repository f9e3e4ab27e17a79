#include "nmt/serve/html_text.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <utility>

#include "nmt/core/decimal_number.h"
#include "nmt/core/error.h"
#include "nmt/data/utf8.h"

namespace nmt {
namespace {

constexpr std::size_t npos = std::string_view::npos;

bool is_html_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'; }

bool is_ascii_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

std::string lowercase(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

template <std::size_t N>
bool is_one_of(const std::string& name, const char* const (&names)[N]) {
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

bool is_void_element(const std::string& name) {
  static const char* const kVoid[] = {"area", "base", "br",   "col",   "embed",  "hr",    "img",
                                      "input", "link", "meta", "param", "source", "track", "wbr"};
  return is_one_of(name, kVoid);
}

// [first, last): `raw` without its leading and trailing HTML whitespace.
std::pair<std::size_t, std::size_t> trim_bounds(std::string_view raw) {
  std::size_t first = 0, last = raw.size();
  while (first < last && is_html_space(raw[first])) ++first;
  while (last > first && is_html_space(raw[last - 1])) --last;
  return {first, last};
}

// ---- Character references ----

const std::pair<std::string_view, char32_t> kNamedReferences[] = {
    {"amp", U'&'},     {"lt", U'<'},      {"gt", U'>'},      {"quot", U'"'},    {"apos", U'\''},
    {"nbsp", 0xA0},    {"iexcl", 0xA1},   {"iquest", 0xBF},  {"aacute", 0xE1},  {"eacute", 0xE9},
    {"iacute", 0xED},  {"oacute", 0xF3},  {"uacute", 0xFA},  {"uuml", 0xFC},    {"ntilde", 0xF1},
    {"Aacute", 0xC1},  {"Eacute", 0xC9},  {"Iacute", 0xCD},  {"Oacute", 0xD3},  {"Uacute", 0xDA},
    {"Uuml", 0xDC},    {"Ntilde", 0xD1},  {"mdash", 0x2014}, {"ndash", 0x2013}, {"hellip", 0x2026},
    {"laquo", 0xAB},   {"raquo", 0xBB},   {"ldquo", 0x201C}, {"rdquo", 0x201D}, {"lsquo", 0x2018},
    {"rsquo", 0x2019}};

int digit_value(char c, std::uint32_t base) {
  if (c >= '0' && c <= '9') return c - '0';
  if (base == 16 && c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (base == 16 && c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The character that `body` ("#233" or "#xE9") stands for, or 0 when it stands for none.
char32_t numeric_reference(std::string_view body) {
  const bool hex = body.size() > 1 && (body[1] == 'x' || body[1] == 'X');
  const std::uint32_t base = hex ? 16 : 10;
  std::size_t i = hex ? 2 : 1;
  if (i == body.size()) return 0;
  std::uint32_t value = 0;
  for (; i < body.size(); ++i) {
    const int digit = digit_value(body[i], base);
    if (digit < 0) return 0;
    value = value * base + static_cast<std::uint32_t>(digit);
    if (value > 0x10FFFF) return 0;  // checked at each digit, so that it never wraps
  }
  if (value >= 0xD800 && value <= 0xDFFF) return 0;
  const bool control = value < 0x80 ? is_control_character(static_cast<char>(value)) : value < 0xA0;
  if (control && value != U'\t' && value != U'\n' && value != U'\r') return 0;  // NUL included
  return value;
}

// The character that `body` (between '&' and ';') stands for, or 0 when it stands for none.
char32_t reference(std::string_view body) {
  if (!body.empty() && body[0] == '#') return numeric_reference(body);
  for (const auto& [name, value] : kNamedReferences) {
    if (name == body) return value;
  }
  return 0;
}

std::string decode_references(std::string_view raw) {
  constexpr std::size_t kLongestBody = 16;  // "#x10FFFF" with zeros in front is longer: kept literally
  std::string out;
  for (std::size_t i = 0; i < raw.size();) {
    const std::size_t semicolon = raw[i] == '&' ? raw.find(';', i + 1) : npos;
    const char32_t c = semicolon != npos && semicolon - i - 1 <= kLongestBody
                           ? reference(raw.substr(i + 1, semicolon - i - 1))
                           : 0;
    if (c == 0) {
      out += raw[i++];
    } else {
      append_utf8(out, c);
      i = semicolon + 1;
    }
  }
  return out;
}

// Whether `text` is only HTML whitespace and no-break spaces: nothing to translate.
bool is_blank(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "\xC2\xA0") == 0) {
      ++i;
    } else if (!is_html_space(text[i])) {
      return false;
    }
  }
  return true;
}

// ---- Tags ----

struct Tag {
  std::string name;           // lowercase
  bool closing = false;       // </name>
  bool self_closing = false;  // <name ... />
  bool no_translate = false;  // translate="no" or class "notranslate"
};

// The end (after '>') of the tag that starts at `i`, or npos. A quoted attribute value, which
// begins after '=', may hold '>'.
constexpr std::size_t kMaxTagBytes = 4096;

std::size_t tag_end(std::string_view html, std::size_t i) {
  bool after_equals = false;
  // A tag longer than this is text: the bound keeps many unclosed tags linear, not quadratic.
  const std::size_t end = std::min(html.size(), i + kMaxTagBytes);
  for (std::size_t k = i + 1; k < end; ++k) {
    const char c = html[k];
    if (c == '>') return k + 1;
    if (after_equals && (c == '"' || c == '\'')) {
      k = html.find(c, k + 1);
      if (k == npos || k >= end) return npos;
      after_equals = false;
    } else if (c == '=') {
      after_equals = true;
    } else if (!is_html_space(c)) {
      after_equals = false;
    }
  }
  return npos;
}

// Whether the class list `classes` (separated by HTML whitespace) holds `wanted`.
bool has_class(std::string_view classes, const std::string& wanted) {
  std::string padded = " " + std::string(classes) + " ";
  std::replace_if(padded.begin(), padded.end(), is_html_space, ' ');
  return padded.find(" " + wanted + " ") != std::string::npos;
}

// Reads the tag `raw`, from '<' to '>' as tag_end found it.
Tag read_tag(std::string_view raw) {
  Tag tag;
  tag.closing = raw[1] == '/';
  tag.self_closing = raw[raw.size() - 2] == '/';
  const std::size_t end = raw.size() - 1;  // the '>'
  auto until = [&](std::size_t k, auto stop) {
    while (k < end && !stop(raw[k])) ++k;
    return k;
  };
  auto name_stop = [](char c) { return is_html_space(c) || c == '/' || c == '=' || c == '>'; };
  std::size_t k = tag.closing ? 2 : 1;
  const std::size_t name_end = until(k, name_stop);
  tag.name = lowercase(raw.substr(k, name_end - k));
  k = name_end;
  while (k < end) {  // attributes: name, optional '=' and value
    k = until(k, [](char c) { return !is_html_space(c) && c != '/'; });
    const std::size_t attribute_end = std::max(until(k, name_stop), k + 1);
    const std::string attribute = lowercase(raw.substr(k, attribute_end - k));
    k = until(attribute_end, [](char c) { return !is_html_space(c); });
    if (k >= end || raw[k] != '=') continue;
    k = until(k + 1, [](char c) { return !is_html_space(c); });
    std::string_view value;
    if (k < end && (raw[k] == '"' || raw[k] == '\'')) {
      const std::size_t close = std::min(raw.find(raw[k], k + 1), end);
      value = raw.substr(k + 1, close - k - 1);
      k = close + 1;
    } else {
      const std::size_t value_end = until(k, [](char c) { return is_html_space(c) || c == '>'; });
      value = raw.substr(k, value_end - k);
      k = value_end;
    }
    if (attribute == "translate" && lowercase(value) == "no") tag.no_translate = true;
    if (attribute == "class" && has_class(value, "notranslate")) tag.no_translate = true;
  }
  return tag;
}

// The end of the markup that starts with '<' at `i`, or npos when the '<' is text. `last_close` is
// the position of the last '>' in `html`: with none after `i`, a tag cannot end, and "a<b<c<d..."
// is not scanned to its end at every '<'.
std::size_t markup_end(std::string_view html, std::size_t i, std::size_t last_close) {
  const auto to_end_of = [&](std::size_t from, std::string_view close) {
    const std::size_t at = html.find(close, from);
    return at == npos ? html.size() : at + close.size();
  };
  const std::string_view rest = html.substr(i);
  if (rest.compare(0, 4, "<!--") == 0) return to_end_of(i + 4, "-->");
  if (rest.compare(0, 9, "<![CDATA[") == 0) return to_end_of(i + 9, "]]>");
  if (rest.size() < 2 || last_close == npos || last_close < i) return npos;
  if (rest[1] == '!' || rest[1] == '?') {
    const std::size_t close = html.find('>', i + 2);
    return close == npos ? npos : close + 1;
  }
  if (is_ascii_letter(rest[1]) || (rest[1] == '/' && rest.size() > 2 && is_ascii_letter(rest[2]))) {
    return tag_end(html, i);
  }
  return npos;
}

// The end of the contents and end tag of a <script> or <style> whose start tag ends at `from`:
// after the '>' of the first "</name", or the end of the input.
std::size_t raw_text_end(std::string_view html, std::size_t from, const std::string& name) {
  for (std::size_t k = html.find("</", from); k != npos; k = html.find("</", k + 2)) {
    const std::size_t after = k + 2 + name.size();
    if (after > html.size() || lowercase(html.substr(k + 2, name.size())) != name) continue;
    if (after == html.size() || is_html_space(html[after]) || html[after] == '/' || html[after] == '>') {
      const std::size_t close = html.find('>', after);
      return close == npos ? html.size() : close + 1;
    }
  }
  return html.size();
}

// Cuts a fragment into pieces, following which element's contents are not to be translated.
class FragmentParser {
 public:
  explicit FragmentParser(std::string_view html) : html_(html) {}

  std::vector<HtmlPiece> parse() {
    const std::size_t last_close = html_.rfind('>');
    std::size_t i = 0, text_start = 0;
    while (i < html_.size()) {
      const std::size_t end = html_[i] == '<' ? markup_end(html_, i, last_close) : npos;
      if (end == npos) {
        ++i;
        continue;
      }
      add_text(text_start, i);
      const std::size_t start = i;
      i = is_ascii_letter(html_[i + 1]) || html_[i + 1] == '/' ? after_tag(i, end) : end;
      pieces_.push_back({false, std::string(html_.substr(start, i - start)), ""});
      text_start = i;
    }
    add_text(text_start, html_.size());
    return std::move(pieces_);
  }

 private:
  // Updates what is skipped after the tag html_[start, end); returns the end of the markup,
  // which takes in the contents of <script> and <style>.
  std::size_t after_tag(std::size_t start, std::size_t end) {
    const Tag tag = read_tag(html_.substr(start, end - start));
    const bool opens = !tag.closing && !tag.self_closing && !is_void_element(tag.name);
    if (opens && (tag.name == "script" || tag.name == "style")) return raw_text_end(html_, end, tag.name);
    if (skipped_.empty()) {
      // <a>: in what Mastodon sends, links hold mentions (@user), hashtags and URLs, none of
      // which is text to translate.
      static const char* const kCode[] = {"code", "pre", "a"};
      if (opens && (tag.no_translate || is_one_of(tag.name, kCode))) {
        skipped_ = tag.name;
        depth_ = 1;
      }
    } else if (tag.name == skipped_ && (opens || tag.closing)) {
      depth_ += tag.closing ? -1 : 1;
      if (depth_ == 0) skipped_.clear();
    }
    return end;
  }

  void add_text(std::size_t start, std::size_t end) {
    if (start == end) return;
    const std::string_view raw = html_.substr(start, end - start);
    const auto [first, last] = trim_bounds(raw);
    std::string text = decode_references(raw.substr(first, last - first));
    if (!skipped_.empty() || is_blank(text)) {
      pieces_.push_back({false, std::string(raw), ""});
    } else {
      pieces_.push_back({true, std::string(raw), std::move(text)});
    }
  }

  std::string_view html_;
  std::vector<HtmlPiece> pieces_;
  std::string skipped_;  // the element whose contents are kept as they are; "" when none
  int depth_ = 0;        // how many elements named skipped_ are open
};

}  // namespace

std::vector<HtmlPiece> parse_html_fragment(std::string_view html) { return FragmentParser(html).parse(); }

std::vector<std::string> html_texts(const std::vector<HtmlPiece>& pieces) {
  std::vector<std::string> texts;
  for (const HtmlPiece& piece : pieces) {
    if (piece.is_text) texts.push_back(piece.text);
  }
  return texts;
}

std::string escape_html_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '&') {
      out += "&amp;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else {
      out += c;
    }
  }
  return out;
}

std::string rebuild_html(const std::vector<HtmlPiece>& pieces, const std::vector<std::string>& translations) {
  const auto runs = static_cast<std::size_t>(
      std::count_if(pieces.begin(), pieces.end(), [](const HtmlPiece& piece) { return piece.is_text; }));
  if (runs != translations.size()) {
    throw DataError("rebuild_html: " + std::to_string(translations.size()) + " translations for " +
                    std::to_string(runs) + " text runs");
  }
  std::string out;
  std::size_t next = 0;
  for (const HtmlPiece& piece : pieces) {
    if (!piece.is_text) {
      out += piece.raw;
      continue;
    }
    const auto [first, last] = trim_bounds(piece.raw);
    out += piece.raw.substr(0, first) + escape_html_text(translations[next++]) + piece.raw.substr(last);
  }
  return out;
}

}  // namespace nmt
