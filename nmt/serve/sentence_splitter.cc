#include "nmt/serve/sentence_splitter.h"

#include <algorithm>
#include <cstddef>
#include <iterator>

#include "nmt/core/error.h"
#include "nmt/data/utf8.h"
#include "nmt/eval/unicode_text.h"

namespace nmt {
namespace {

// Stands for a byte that does not start a valid UTF-8 sequence: no class below contains it.
constexpr char32_t kOpaque = 0xFFFFFFFF;

struct CodePoint {
  char32_t value;
  std::size_t size;  // in bytes, at least 1
};

// The code point that starts at byte `i`, or kOpaque over one byte where the bytes are not valid.
CodePoint decode_at(std::string_view text, std::size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  if (lead < 0x80) return {lead, 1};
  const std::size_t size = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  if (size == 1 || i + size > text.size() || find_invalid_utf8(text.substr(i, size)) != std::string_view::npos) {
    return {kOpaque, 1};
  }
  char32_t value = lead & (0x7Fu >> size);
  for (std::size_t k = 1; k < size; ++k) value = (value << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3Fu);
  return {value, size};
}

std::u32string decode(std::string_view text) {
  std::u32string out;
  for (std::size_t i = 0; i < text.size();) {
    const CodePoint c = decode_at(text, i);
    out += c.value;
    i += c.size;
  }
  return out;
}

bool is_line_break(char32_t c) {
  return c == U'\n' || c == U'\v' || c == U'\f' || c == U'\r' || c == 0x85 || c == 0x2028 || c == 0x2029;
}

// Python's whitespace (the table BLEU uses, eval/unicode_text.h) but for U+001C..U+001F, the
// separators of old record formats, which no text uses as a space.
bool is_space(char32_t c) { return is_unicode_whitespace(c) && !(c >= 0x1C && c <= 0x1F); }

bool is_terminal(char32_t c) { return c == U'.' || c == U'!' || c == U'?' || c == 0x2026; }

bool is_closer(char32_t c) {
  return c == U'"' || c == U'\'' || c == 0x201D || c == 0x2019 || c == 0xBB || c == U')' || c == U']';
}

bool is_opener(char32_t c) {
  return c == U'"' || c == U'\'' || c == 0x201C || c == 0x2018 || c == 0xAB || c == U'(' || c == U'[';
}

// Latin Extended-A alternates capital and small letters, with a shift at U+0138 and U+0149.
bool is_latin_extended_a_upper(char32_t c) {
  if (c >= 0x100 && c <= 0x137) return c % 2 == 0;
  if (c >= 0x139 && c <= 0x148) return c % 2 == 1;
  if (c >= 0x14A && c <= 0x177) return c % 2 == 0;
  if (c >= 0x179 && c <= 0x17E) return c % 2 == 1;
  return c == 0x178;
}

bool is_upper(char32_t c) {
  return (c >= U'A' && c <= U'Z') || (c >= 0xC0 && c <= 0xDE && c != 0xD7) || is_latin_extended_a_upper(c) ||
         c == 0x386 || (c >= 0x388 && c <= 0x38F && c != 0x38B && c != 0x38D) ||
         (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) || (c >= 0x400 && c <= 0x42F);
}

bool is_lower(char32_t c) {
  return (c >= U'a' && c <= U'z') || (c >= 0xDF && c <= 0xFF && c != 0xF7) ||
         (c >= 0x100 && c <= 0x17F && !is_latin_extended_a_upper(c)) || (c >= 0x3AC && c <= 0x3CE) ||
         (c >= 0x430 && c <= 0x45F);
}

bool can_start_sentence(char32_t c) {
  return is_upper(c) || (c >= U'0' && c <= U'9') || is_opener(c) || c == 0xBF || c == 0xA1 || c == 0x2014;
}

// Without their final period; see the header for why "etc." is not here.
bool is_abbreviation(const std::u32string& stem) {
  static const std::u32string kAbbreviations[] = {
      U"Sr",  U"Sra",  U"Srta", U"Sres", U"Dr",  U"Dra", U"Ud",  U"Uds",   U"Vd", U"Vds", U"Dña",
      U"Lic", U"Ing",  U"Av",   U"pág",  U"págs", U"núm", U"cap", U"art", U"vol", U"aprox", U"Mr",
      U"Mrs", U"Ms",   U"Prof", U"St",   U"Jr",  U"vs",  U"e.g", U"i.e", U"cf", U"pp",  U"fig"};
  return std::find(std::begin(kAbbreviations), std::end(kAbbreviations), stem) != std::end(kAbbreviations);
}

// Whether a sentence ends between `word` and a following word that begins with `next`
// (whitespace without a line break between them).
bool ends_sentence(std::string_view word, char32_t next) {
  const std::u32string w = decode(word);
  std::size_t end = w.size();
  while (end > 0 && is_closer(w[end - 1])) --end;
  std::size_t stem_end = end;
  while (stem_end > 0 && is_terminal(w[stem_end - 1])) --stem_end;
  if (stem_end == end || !can_start_sentence(next)) return false;
  if (end - stem_end == 1 && w[stem_end] == U'.') {  // a lone period may close an initial or abbreviation
    std::size_t begin = 0;
    while (begin < stem_end && is_opener(w[begin])) ++begin;
    const std::u32string stem = w.substr(begin, stem_end - begin);
    if (stem.size() == 1 && (is_upper(stem[0]) || is_lower(stem[0]))) return false;
    if (is_abbreviation(stem)) return false;
  }
  return true;
}

// The end of the whitespace run from `i`; sets `line_break` when the run holds one.
std::size_t skip_space(std::string_view text, std::size_t i, bool& line_break) {
  line_break = false;
  while (i < text.size()) {
    const CodePoint c = decode_at(text, i);
    if (!is_space(c.value)) break;
    line_break = line_break || is_line_break(c.value);
    i += c.size;
  }
  return i;
}

std::size_t skip_word(std::string_view text, std::size_t i) {
  while (i < text.size()) {
    const CodePoint c = decode_at(text, i);
    if (is_space(c.value)) break;
    i += c.size;
  }
  return i;
}

}  // namespace

SplitText split_sentences(std::string_view paragraph) {
  SplitText split;
  bool line_break = false;
  std::size_t pos = skip_space(paragraph, 0, line_break);
  split.prefix = std::string(paragraph.substr(0, pos));
  std::size_t sentence_start = pos;
  while (pos < paragraph.size()) {
    const std::size_t word_end = skip_word(paragraph, pos);
    const std::size_t space_end = skip_space(paragraph, word_end, line_break);
    if (space_end == paragraph.size() || line_break ||
        ends_sentence(paragraph.substr(pos, word_end - pos), decode_at(paragraph, space_end).value)) {
      split.segments.push_back({std::string(paragraph.substr(sentence_start, word_end - sentence_start)),
                                std::string(paragraph.substr(word_end, space_end - word_end))});
      sentence_start = space_end;
    }
    pos = space_end;
  }
  return split;
}

std::string join_segments(const SplitText& split, const std::vector<std::string>& texts) {
  if (texts.size() != split.segments.size()) {
    throw DataError("join_segments: " + std::to_string(texts.size()) + " translations for " +
                    std::to_string(split.segments.size()) + " sentences");
  }
  std::string out = split.prefix;
  for (std::size_t i = 0; i < texts.size(); ++i) out += texts[i] + split.segments[i].separator;
  return out;
}

std::string join_segments(const SplitText& split) {
  std::string out = split.prefix;
  for (const TextSegment& segment : split.segments) out += segment.text + segment.separator;
  return out;
}

}  // namespace nmt
