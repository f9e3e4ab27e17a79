// sacreBLEU's default BLEU tokenizer, 13a (mteval-v13a's rules).
#pragma once

#include <string>
#include <string_view>

namespace nmt {

/// sacreBLEU's 13a tokenization of one line (UTF-8): drops "<skipped>" and "-\n", turns newlines
/// into spaces, decodes &quot; &amp; &lt; &gt;, splits off punctuation (periods and commas only
/// where not next to a digit, dashes only after a digit) and joins the tokens with single spaces.
std::string tokenize_13a(std::string_view line);

}  // namespace nmt
