// Splits a paragraph into sentences, so that the RNN never sees a long multi-sentence input: the
// server translates the sentences as one batch and joins the translations with the whitespace
// that separated the sentences in the input. Joining the untranslated sentences gives the input
// back byte for byte.
//
// The rule (quoted in the docs):
//   * Whitespace is ASCII space, tab, LF, VT, FF, CR, and U+0085, U+00A0 (no-break space),
//     U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000. Of these, LF, VT, FF, CR,
//     U+0085, U+2028 and U+2029 are line breaks.
//   * Whitespace at the start of the paragraph is kept as a prefix; whitespace between two
//     sentences, and at the end, is kept as the separator after a sentence. A sentence never
//     begins or ends with whitespace and is never empty; empty or all-whitespace input has none.
//   * A run of whitespace that holds a line break always ends a sentence (lists, verses and
//     blank lines stay apart).
//   * Within a line, a sentence ends at a run of whitespace when the word before it ends with
//     `.`, `!`, `?` or `…` (U+2026), or a run of them (`?!`, `...`), optionally followed by
//     closing quotes or brackets (" ' ” ’ » ) ]), and the word after it begins with a character
//     that can start a sentence: an uppercase letter (ASCII, Latin-1, Latin Extended-A, Greek,
//     Cyrillic), a digit, an opening quote or bracket (" ' “ ‘ « ( [), `¿`, `¡` or the dash of
//     Spanish dialogue `—` (U+2014).
//   * It does not end after a single period (not `...`) that follows a single letter (initials:
//     "J. R. R. Tolkien") or one of these abbreviations, matched case-sensitively as written,
//     after any opening quotes or brackets:
//       Spanish: Sr. Sra. Srta. Sres. Dr. Dra. Ud. Uds. Vd. Vds. Dña. Lic. Ing. Av. pág. págs.
//                núm. cap. art. vol. aprox.
//       English: Mr. Mrs. Ms. Prof. St. Jr. vs. e.g. i.e. cf. pp. fig.
//     "etc." is left out on purpose: followed by an uppercase word it ends a sentence more often
//     than not. A number and a period end a sentence like any word ("Capítulo 3. Versículo 4."
//     is two sentences; "el 3. de mayo" is one, as a lowercase word follows).
//   * Text with no terminal punctuation is one sentence. Bytes that are not valid UTF-8 are
//     opaque: neither whitespace nor letters, never split apart.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace nmt {

/// One sentence and the whitespace that followed it.
struct TextSegment {
  std::string text;       // the sentence: never empty, never begins or ends with whitespace
  std::string separator;  // the whitespace after it, byte for byte; empty only for the last one
};

/// A paragraph cut into sentences: prefix + text[0] + separator[0] + text[1] + ... is the input.
struct SplitText {
  std::string prefix;                 // the whitespace before the first sentence
  std::vector<TextSegment> segments;  // none for empty or all-whitespace input
};

/// Cuts `paragraph` into sentences by the rule above.
SplitText split_sentences(std::string_view paragraph);

/// prefix + texts[0] + separator[0] + texts[1] + separator[1] + ...: the translations joined as
/// the sentences were. Throws DataError unless there is one text per segment.
std::string join_segments(const SplitText& split, const std::vector<std::string>& texts);

/// The input of split_sentences back, byte for byte.
std::string join_segments(const SplitText& split);

}  // namespace nmt
