#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace nmt {

/// Byte offset of the first invalid UTF-8 sequence in `text`, or std::string_view::npos when the
/// whole text is valid. Strict (RFC 3629): rejects overlong forms, surrogates (U+D800..U+DFFF),
/// code points above U+10FFFF and truncated sequences.
std::size_t find_invalid_utf8(std::string_view text);

/// Appends code point `c` (at most U+10FFFF, not a surrogate: the caller checks) to `out` as UTF-8.
void append_utf8(std::string& out, char32_t c);

}  // namespace nmt
