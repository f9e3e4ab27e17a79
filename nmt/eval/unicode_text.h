// Text with the semantics of Python 3's `str`, which sacreBLEU runs on: whitespace, splitting,
// stripping and full Unicode lowercasing (BLEU and chrF use them). Arguments are valid UTF-8.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace nmt {


/// Python's str.isspace() for one code point (ASCII whitespace, U+001C..U+001F, U+0085, U+00A0,
/// U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000).
bool is_unicode_whitespace(char32_t c);
/// Python's str.split(): the pieces between runs of whitespace, without empty ones.
std::vector<std::string_view> split_whitespace(std::string_view utf8);
/// Python's str.lower(): full Unicode lowercase mapping (Unicode 14), with Greek final sigma.
std::string lowercase_unicode(std::string_view utf8);
/// Python's str.rstrip(): `utf8` without its trailing whitespace.
std::string_view rstrip_whitespace(std::string_view utf8);

}  // namespace nmt
