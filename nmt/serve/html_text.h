// The text of an HTML fragment, for LibreTranslate's `format: "html"` (what Mastodon sends: a
// toot's HTML). The fragment is cut into markup, kept byte for byte, and text runs, which are
// translated; the document is then rebuilt with the translations in place of the text runs.
//
// The rule:
//   * Markup: a start or end tag (`<` then an ASCII letter, or `</` then a letter, up to the
//     first `>` outside a quoted attribute value), a comment `<!-- ... -->`, `<![CDATA[ ... ]]>`,
//     and `<!...>` / `<?...>` (doctype, processing instructions). A comment or CDATA section with
//     no end runs to the end of the input; any other `<` with no `>` after it within 4096 bytes
//     (or not followed by a letter, `/`, `!` or `?`) is text.
//   * Not translated, kept as markup: the contents of <script>, <style> (up to their end tag),
//     <code>, <pre> and <a> (in Mastodon's HTML, links hold mentions, hashtags and URLs), and of
//     any element whose start tag has translate="no" or a class
//     "notranslate". Nested elements of the same name are counted, so the first matching end tag
//     is not taken for the end. Void elements (<br>, <img>, <hr>, ...) and self-closing tags
//     (`/>`) open nothing. Tag and attribute names are case-insensitive.
//   * A text run that is only HTML whitespace (space, tab, LF, FF, CR) is kept as markup.
//   * The text of a run is its raw bytes without leading and trailing HTML whitespace, with
//     character references decoded: &amp; &lt; &gt; &quot; &apos; &nbsp; &iexcl; &iquest;
//     &aacute; &eacute; &iacute; &oacute; &uacute; &uuml; &ntilde; (and their capitals: &Aacute;
//     ... &Ntilde;) &mdash; &ndash; &hellip; &laquo; &raquo; &ldquo; &rdquo; &lsquo; &rsquo;, and
//     numeric &#NNN; / &#xHH; of a character (not NUL, a surrogate, a control other than tab, LF
//     and CR, or beyond U+10FFFF). Anything else, a reference without its `;` included, is kept
//     literally.
//   * Rebuilding writes each text run as: its raw leading whitespace, the translation escaped
//     by escape_html_text, its raw trailing whitespace (" Hola " translated "Hello" gives
//     " Hello ").
//
// Known limitation: inline markup cuts a sentence into fragments translated apart ("Hola
// <b>mundo</b>" translates "Hola" and "mundo" separately, and a model trained on whole sentences
// may translate a fragment as nothing); the tags are kept exactly instead.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace nmt {

/// A piece of an HTML fragment: markup kept as it is, or a text run to translate.
struct HtmlPiece {
  bool is_text = false;  // true: a text run to translate; false: markup, copied verbatim
  std::string raw;       // the bytes of the input, exactly
  std::string text;      // a text run's text: trimmed, references decoded, never empty; "" for markup
};

/// Cuts `html` into pieces by the rule above; the raws of the pieces, in order, are `html`.
std::vector<HtmlPiece> parse_html_fragment(std::string_view html);

/// The text of each text run, in order: what to translate.
std::vector<std::string> html_texts(const std::vector<HtmlPiece>& pieces);

/// `text` escaped for a text node: & < > become &amp; &lt; &gt;. Quotes are left alone, as a text
/// node does not need them escaped and translations are full of apostrophes.
std::string escape_html_text(std::string_view text);

/// The fragment with translations[i] in place of the i-th text run (see the rule above); markup
/// verbatim. Throws DataError unless there is one translation per text run.
std::string rebuild_html(const std::vector<HtmlPiece>& pieces, const std::vector<std::string>& translations);

}  // namespace nmt
