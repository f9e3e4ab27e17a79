#include "nmt/serve/html_text.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "nmt/core/error.h"

namespace nmt {
namespace {

using Texts = std::vector<std::string>;

const std::string kToot =
    "<p>Hola <span class=\"h-card\"><a href=\"https://x/@ana\" class=\"u-url mention\">@<span>ana</span></a></span>, "
    "¿cómo estás?</p><p>Adiós &amp; gracias</p>";

Texts texts(const std::string& html) { return html_texts(parse_html_fragment(html)); }

std::string concat_raw(const std::vector<HtmlPiece>& pieces) {
  std::string out;
  for (const HtmlPiece& piece : pieces) out += piece.raw;
  return out;
}

std::string trimmed(const std::string& raw) {
  const char* const space = " \t\n\f\r";
  const std::size_t first = raw.find_first_not_of(space);
  return first == std::string::npos ? "" : raw.substr(first, raw.find_last_not_of(space) + 1 - first);
}

// The raws of the pieces give back the input, and so does a rebuild with a marker for each
// translation once each marker is replaced by its run's raw text (escaping left aside).
void expect_round_trip(const std::string& html) {
  SCOPED_TRACE("input: '" + html + "'");
  const std::vector<HtmlPiece> pieces = parse_html_fragment(html);
  EXPECT_EQ(concat_raw(pieces), html);
  Texts markers, raws;
  for (const HtmlPiece& piece : pieces) {
    EXPECT_EQ(piece.text.empty(), !piece.is_text);
    if (piece.is_text) {
      markers.push_back("\x01");
      raws.push_back(trimmed(piece.raw));
    }
  }
  std::string restored;
  std::size_t next = 0;
  for (const char c : rebuild_html(pieces, markers)) {
    if (c == '\x01' && next < raws.size()) {
      restored += raws[next++];
    } else {
      restored += c;
    }
  }
  EXPECT_EQ(next, raws.size());
  EXPECT_EQ(restored, html);
}

TEST(HtmlText, MastodonTootTranslatesItsTextRunsOnly) {
  const std::vector<HtmlPiece> pieces = parse_html_fragment(kToot);
  EXPECT_EQ(concat_raw(pieces), kToot);
  // The mention (a link) is not text to translate.
  EXPECT_EQ(html_texts(pieces), (Texts{"Hola", ", ¿cómo estás?", "Adiós & gracias"}));
  std::vector<std::string> markup;
  for (const HtmlPiece& piece : pieces) {
    if (!piece.is_text) markup.push_back(piece.raw);
  }
  EXPECT_EQ(markup, (Texts{"<p>", "<span class=\"h-card\">", "<a href=\"https://x/@ana\" class=\"u-url mention\">", "@",
                           "<span>", "ana", "</span>", "</a>", "</span>", "</p>", "<p>", "</p>"}));
  EXPECT_EQ(rebuild_html(pieces, html_texts(pieces)), kToot);  // escaping gives "&amp;" back
  EXPECT_EQ(rebuild_html(pieces, {"Hello", ", how are you?", "Bye & thanks"}),
            "<p>Hello <span class=\"h-card\"><a href=\"https://x/@ana\" class=\"u-url mention\">@<span>ana</span>"
            "</a></span>, how are you?</p><p>Bye &amp; thanks</p>");
}

TEST(HtmlText, RebuildKeepsTheWhitespaceAroundEachRun) {
  const std::vector<HtmlPiece> pieces = parse_html_fragment("<b> Hola </b>\n<i>\tmundo\n</i>");
  EXPECT_EQ(html_texts(pieces), (Texts{"Hola", "mundo"}));
  EXPECT_EQ(rebuild_html(pieces, {"Hello", "world"}), "<b> Hello </b>\n<i>\tworld\n</i>");
  EXPECT_THROW(rebuild_html(pieces, {"Hello"}), DataError);
}

TEST(HtmlText, DecodesCharacterReferences) {
  EXPECT_EQ(texts("&amp; &lt; &gt; &quot; &#39; &apos;"), (Texts{"& < > \" ' '"}));
  EXPECT_EQ(texts("a&nbsp;b"), (Texts{"a\xC2\xA0" "b"}));
  EXPECT_EQ(texts("&iexcl;Ol&eacute;! &iquest;Qu&eacute;? &ntilde;&Ntilde;&aacute;&iacute;&oacute;&uacute;&uuml;"),
            (Texts{"¡Olé! ¿Qué? ñÑáíóúü"}));
  EXPECT_EQ(texts("&Aacute;&Eacute;&Iacute;&Oacute;&Uacute;&Uuml;"), (Texts{"ÁÉÍÓÚÜ"}));
  EXPECT_EQ(texts("&mdash;&ndash;&hellip;&laquo;&raquo;&ldquo;&rdquo;&lsquo;&rsquo;"),
            (Texts{"—–…«»“”‘’"}));
  EXPECT_EQ(texts("&#233;&#xE9;&#XE9;&#x1F600;&#9;x"), (Texts{"éé\xC3\xA9\xF0\x9F\x98\x80\tx"}));
}

TEST(HtmlText, MalformedOrUnknownReferencesAreKeptLiterally) {
  for (const std::string literal : {"&foo;", "&#xZZ;", "&#99999999;", "&#x110000;", "&#xD800;", "&#0;", "&#1;",
                                    "&#x80;", "&", "&amp", "&#;", "&#x;", "&AMP;", "&nbsp", "&&amp"}) {
    const std::string html = "a " + literal + " b";
    const Texts decoded = texts(html);
    ASSERT_EQ(decoded.size(), 1u) << literal;
    EXPECT_EQ(decoded[0], html) << literal;
  }
  EXPECT_EQ(texts("&foo &amp; x"), (Texts{"&foo & x"}));
  EXPECT_EQ(texts("&&amp;&#233"), (Texts{"&&&#233"}));
}

TEST(HtmlText, ScriptStyleCodeAndPreAreNotTranslated) {
  EXPECT_EQ(texts("Uno<script>var a = '<b>x</b>'; if (a < b) {}</script>Dos"), (Texts{"Uno", "Dos"}));
  EXPECT_EQ(texts("Uno<STYLE type=\"text/css\">p > b { }</Style >Dos"), (Texts{"Uno", "Dos"}));
  EXPECT_EQ(texts("Uno <code>int x;</code> dos <pre>a <b>b</b> <pre>c</pre> d</pre> tres"),
            (Texts{"Uno", "dos", "tres"}));
  const std::vector<HtmlPiece> pieces = parse_html_fragment("a<script>x</script>b");
  ASSERT_EQ(pieces.size(), 3u);
  EXPECT_EQ(pieces[1].raw, "<script>x</script>");
  EXPECT_EQ(texts("Uno<script>sin fin"), (Texts{"Uno"}));  // the rest of the input is script
}

TEST(HtmlText, TranslateNoAndNotranslateKeepTheirElement) {
  EXPECT_EQ(texts("Hola <span translate=\"no\">Ana <span>María</span> Pérez</span> adiós"),
            (Texts{"Hola", "adiós"}));
  EXPECT_EQ(texts("Hola <SPAN TRANSLATE=NO>Ana</SPAN> adiós"), (Texts{"Hola", "adiós"}));
  EXPECT_EQ(texts("Hola <b class='x notranslate y'>Ana <br> <img src=a.png/> <b/> Pérez</b> adiós"),
            (Texts{"Hola", "adiós"}));
  EXPECT_EQ(texts("<span class=\"notranslated\">sí</span><span translate=\"yes\">sí</span>"), (Texts{"sí", "sí"}));
  // A void element or self-closing tag with translate="no" opens nothing.
  EXPECT_EQ(texts("<br translate=\"no\">Hola <span translate=\"no\"/> adiós"), (Texts{"Hola", "adiós"}));
}

TEST(HtmlText, UnterminatedTagsAndLoneAngleBracketsAreText) {
  EXPECT_EQ(texts("a < b y c <3"), (Texts{"a < b y c <3"}));
  EXPECT_EQ(texts("Hola <b>mundo</b> <a href=\"x"), (Texts{"Hola", "mundo", "<a href=\"x"}));
  EXPECT_EQ(texts("Hola <b"), (Texts{"Hola <b"}));
  EXPECT_EQ(texts("fin <"), (Texts{"fin <"}));
}

TEST(HtmlText, QuotedAttributeValuesMayHoldAngleBrackets) {
  const std::vector<HtmlPiece> pieces = parse_html_fragment("<b title=\"a > b\" data-x='<p>'>enlace</b>");
  ASSERT_EQ(pieces.size(), 3u);
  EXPECT_EQ(pieces[0].raw, "<b title=\"a > b\" data-x='<p>'>");
  EXPECT_EQ(pieces[1].text, "enlace");
  // A quote that does not follow '=' begins no value.
  EXPECT_EQ(texts("<b b\"c>x</b>\"d"), (Texts{"x", "\"d"}));
  // A link's text is not translated (mentions, hashtags, URLs), whatever its attributes hold.
  EXPECT_EQ(texts("<a title=\"a > b\">enlace</a> y más"), (Texts{"y más"}));
}

TEST(HtmlText, CommentsDoctypeAndCdataAreMarkup) {
  EXPECT_EQ(texts("<!DOCTYPE html><!-- <p>no</p> -->Sí<![CDATA[ <no> ]]><?xml x?>"), (Texts{"Sí"}));
  EXPECT_EQ(texts("Hola<!-- sin fin"), (Texts{"Hola"}));
}

TEST(HtmlText, UppercaseTagsAndNestedSpans) {
  EXPECT_EQ(texts("<P>Uno</P><DIV><SPAN>dos <span>tres</span></SPAN></DIV>"), (Texts{"Uno", "dos", "tres"}));
  EXPECT_EQ(texts("<CODE>x</code> y <Pre>z</PRE>"), (Texts{"y"}));
}

TEST(HtmlText, WhitespaceOnlyRunsAndEmptyInputAreKept) {
  EXPECT_TRUE(parse_html_fragment("").empty());
  const std::vector<HtmlPiece> pieces = parse_html_fragment("<p> \n</p><p>&nbsp;</p>\t");
  EXPECT_TRUE(html_texts(pieces).empty());
  EXPECT_EQ(concat_raw(pieces), "<p> \n</p><p>&nbsp;</p>\t");
  EXPECT_EQ(rebuild_html(pieces, {}), "<p> \n</p><p>&nbsp;</p>\t");
}

TEST(HtmlText, EscapesAmpersandAndAngleBracketsOnly) {
  EXPECT_EQ(escape_html_text("a & b < c > d \"e\" 'f' ñ"), "a &amp; b &lt; c &gt; d \"e\" 'f' ñ");
  EXPECT_EQ(escape_html_text(""), "");
}

TEST(HtmlText, ExamplesRoundTrip) {
  for (const std::string& html :
       {kToot, std::string("a < b"), std::string("<a title=\"x>y\">z</a>"), std::string("<script>x"),
        std::string(" <p> Hola </p> "), std::string("<span translate=no>a</span>b"), std::string("&&amp;<"),
        std::string("<!---->"), std::string("<a b='c"), std::string("\xFF<\xFE>")}) {
    expect_round_trip(html);
  }
}

TEST(HtmlText, RandomMarkupRoundTrips) {
  const std::vector<std::string> alphabet = {
      "<", ">", "</", "/>", "<!--", "-->", "<!", "<?", "<![CDATA[", "]]>", "\"", "'", "=", " ", "\n", "\t", "a",
      "b", "ñ", "p", "span", "script", "code", "pre", "br", " translate=no", " class=notranslate", "&", ";", "#",
      "x", "amp", "nbsp", "1", "&amp;", "&#233;", "\xFF"};
  std::uint64_t state = 42;  // a fixed seed: the same strings on every run
  auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::size_t>(state >> 33);
  };
  for (int round = 0; round < 3000; ++round) {
    std::string html;
    const std::size_t length = next() % 30;
    for (std::size_t k = 0; k < length; ++k) html += alphabet[next() % alphabet.size()];
    expect_round_trip(html);
    if (HasFailure()) break;
  }
}

}  // namespace
}  // namespace nmt
