#include "nmt/serve/sentence_splitter.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "nmt/core/error.h"

namespace nmt {
namespace {

using Texts = std::vector<std::string>;

Texts texts_of(const SplitText& split) {
  Texts texts;
  for (const TextSegment& segment : split.segments) texts.push_back(segment.text);
  return texts;
}

Texts sentences(const std::string& paragraph) { return texts_of(split_sentences(paragraph)); }

// The invariants of every split: the input comes back byte for byte, no sentence is empty or
// touches whitespace, and only the last separator may be empty.
void expect_well_formed(const std::string& paragraph) {
  SCOPED_TRACE("input: '" + paragraph + "'");
  const SplitText split = split_sentences(paragraph);
  EXPECT_EQ(join_segments(split), paragraph);
  EXPECT_EQ(join_segments(split, texts_of(split)), paragraph);
  const std::string spaces[] = {" ", "\t", "\n", "\v", "\f", "\r", "\xC2\xA0", "\xE2\x80\xAF", "\xE3\x80\x80"};
  for (std::size_t i = 0; i < split.segments.size(); ++i) {
    const std::string& text = split.segments[i].text;
    ASSERT_FALSE(text.empty());
    for (const std::string& space : spaces) {
      EXPECT_NE(text.compare(0, space.size(), space), 0) << "'" << text << "' begins with whitespace";
      EXPECT_FALSE(text.size() >= space.size() && text.compare(text.size() - space.size(), space.size(), space) == 0)
          << "'" << text << "' ends with whitespace";
    }
    if (i + 1 < split.segments.size()) {
      EXPECT_FALSE(split.segments[i].separator.empty());
    }
  }
}

const std::vector<std::string> kExamples = {
    "En el principio creó Dios los cielos y la tierra. Y la tierra estaba desordenada y vacía.",
    "¿Dónde estás? ¡Aquí estoy! Ven.",
    "Dijo: \"Ven aquí.\" Y vino.",
    "«Hola.» «Adiós.»",
    "El Sr. García y la Dra. López llegaron. Después se fueron.",
    "J. R. R. Tolkien escribió libros.",
    "Capítulo 3. Versículo 4.",
    "Llegó el 3. de mayo.",
    "Esperó... Nadie vino…",
    "Esperó... y nadie vino.",
    "Uno.\nDos.\n\nTres",
    "Uno.\r\nDos.\r\n",
    "Uno.\tDos.",
    "Uno.\xC2\xA0" "Dos.",
    "  \n Hola. Adiós.  \n",
    "",
    "   ",
    "\n\n",
    "Sin puntuación final",
    "¿Qué?! ¿Cómo?!",
    "Ve a la pág. 5 y lee.",
    "See e.g. Smith and Mr. Jones. Then stop.",
    "(Ver cap. 2.) Luego sigue.",
    "\xFF\xFE. \x80Hola. \xC3",
    "Fin. \xE2\x80\x94" "¿Quién eres?",
    "ΑΒΓ. Ωμέγα. Ди. Да.",
    "1 En el principio. 2 Y la tierra.",
};

TEST(SentenceSplitter, SplitsAfterTerminalPunctuationBeforeAnUppercaseWord) {
  EXPECT_EQ(sentences(kExamples[0]), (Texts{"En el principio creó Dios los cielos y la tierra.",
                                            "Y la tierra estaba desordenada y vacía."}));
  EXPECT_EQ(sentences("Él dijo. Ésta es. Ñandú. Über alles. Łódź."),
            (Texts{"Él dijo.", "Ésta es.", "Ñandú.", "Über alles.", "Łódź."}));
}

TEST(SentenceSplitter, SpanishQuestionsAndExclamations) {
  EXPECT_EQ(sentences("¿Dónde estás? ¡Aquí estoy! Ven."), (Texts{"¿Dónde estás?", "¡Aquí estoy!", "Ven."}));
  EXPECT_EQ(sentences("¿Qué?! ¿Cómo?!"), (Texts{"¿Qué?!", "¿Cómo?!"}));
  // Spanish style: a question followed by a lowercase word goes on.
  EXPECT_EQ(sentences("¿Quién eres? dijo él."), (Texts{"¿Quién eres? dijo él."}));
}

TEST(SentenceSplitter, ClosingQuotesAndBracketsStayWithTheirSentence) {
  EXPECT_EQ(sentences("Dijo: \"Ven aquí.\" Y vino."), (Texts{"Dijo: \"Ven aquí.\"", "Y vino."}));
  EXPECT_EQ(sentences("«Hola.» «Adiós.»"), (Texts{"«Hola.»", "«Adiós.»"}));
  EXPECT_EQ(sentences("Dijo “sí.” ‘Bien.’ (Nota.) [Fin.] Otra."),
            (Texts{"Dijo “sí.”", "‘Bien.’", "(Nota.)", "[Fin.]", "Otra."}));
  EXPECT_EQ(sentences("He said \"no\". Then left."), (Texts{"He said \"no\".", "Then left."}));
}

TEST(SentenceSplitter, AbbreviationsAndInitialsDoNotEndASentence) {
  EXPECT_EQ(sentences("El Sr. García y la Dra. López llegaron. Después se fueron."),
            (Texts{"El Sr. García y la Dra. López llegaron.", "Después se fueron."}));
  EXPECT_EQ(sentences("J. R. R. Tolkien escribió libros."), (Texts{"J. R. R. Tolkien escribió libros."}));
  EXPECT_EQ(sentences("See e.g. Smith and Mr. Jones. Then stop."),
            (Texts{"See e.g. Smith and Mr. Jones.", "Then stop."}));
  EXPECT_EQ(sentences("Ud. Uds. Vd. Sra. Srta. Prof. St. vs. i.e. cf. núm. 4"),
            (Texts{"Ud. Uds. Vd. Sra. Srta. Prof. St. vs. i.e. cf. núm. 4"}));
  EXPECT_EQ(sentences("(Dr. House) Á. Ñ. B"), (Texts{"(Dr. House) Á. Ñ. B"}));
  // Case-sensitive: "sr." is no abbreviation, and "etc." ends a sentence before an uppercase word.
  EXPECT_EQ(sentences("Dijo sr. Luego etc. Fin."), (Texts{"Dijo sr.", "Luego etc.", "Fin."}));
  // An ellipsis after an abbreviation is an ellipsis.
  EXPECT_EQ(sentences("Vino el Sr... Nadie más."), (Texts{"Vino el Sr...", "Nadie más."}));
}

TEST(SentenceSplitter, NumbersEndASentenceOnlyBeforeASentenceStart) {
  EXPECT_EQ(sentences("Capítulo 3. Versículo 4."), (Texts{"Capítulo 3.", "Versículo 4."}));
  EXPECT_EQ(sentences("Llegó el 3. de mayo."), (Texts{"Llegó el 3. de mayo."}));
  EXPECT_EQ(sentences("1 En el principio. 2 Y la tierra."), (Texts{"1 En el principio.", "2 Y la tierra."}));
  EXPECT_EQ(sentences("Cuesta 3.50 euros. Pagó."), (Texts{"Cuesta 3.50 euros.", "Pagó."}));
}

TEST(SentenceSplitter, EllipsisAndDialogueDash) {
  EXPECT_EQ(sentences("Esperó... Nadie vino…"), (Texts{"Esperó...", "Nadie vino…"}));
  EXPECT_EQ(sentences("Esperó… Nadie."), (Texts{"Esperó…", "Nadie."}));
  EXPECT_EQ(sentences("Esperó... y nadie vino."), (Texts{"Esperó... y nadie vino."}));
  EXPECT_EQ(sentences("Fin. —¿Quién eres?"), (Texts{"Fin.", "—¿Quién eres?"}));
}

TEST(SentenceSplitter, GreekAndCyrillicCapitalsStartSentences) {
  EXPECT_EQ(sentences("ΑΒΓ. Ωμέγα. Ди. Да."), (Texts{"ΑΒΓ.", "Ωμέγα.", "Ди.", "Да."}));
}

TEST(SentenceSplitter, LineBreaksAlwaysEndASentenceAndStayInTheSeparator) {
  const SplitText split = split_sentences("Uno.\nDos.\n\nTres");
  ASSERT_EQ(split.segments.size(), 3u);
  EXPECT_EQ(split.segments[0].separator, "\n");
  EXPECT_EQ(split.segments[1].separator, "\n\n");
  EXPECT_EQ(split.segments[2].separator, "");
  EXPECT_EQ(sentences("una lista\nsin puntos\ny en minúscula"), (Texts{"una lista", "sin puntos", "y en minúscula"}));
  const SplitText crlf = split_sentences("Uno.\r\nDos.\r\n");
  EXPECT_EQ(texts_of(crlf), (Texts{"Uno.", "Dos."}));
  EXPECT_EQ(crlf.segments[0].separator, "\r\n");
  EXPECT_EQ(crlf.segments[1].separator, "\r\n");
  EXPECT_EQ(sentences("a \xE2\x80\xA8 b"), (Texts{"a", "b"}));  // U+2028 LINE SEPARATOR
}

TEST(SentenceSplitter, TabsAndUnicodeSpacesSeparateSentences) {
  const SplitText tab = split_sentences("Uno.\tDos.");
  EXPECT_EQ(texts_of(tab), (Texts{"Uno.", "Dos."}));
  EXPECT_EQ(tab.segments[0].separator, "\t");
  const SplitText nbsp = split_sentences("Uno.\xC2\xA0" "Dos.");
  EXPECT_EQ(texts_of(nbsp), (Texts{"Uno.", "Dos."}));
  EXPECT_EQ(nbsp.segments[0].separator, "\xC2\xA0");
  EXPECT_EQ(sentences("Uno.\xE3\x80\x80" "Dos."), (Texts{"Uno.", "Dos."}));  // U+3000
  // Python counts U+001C..U+001F as whitespace; here they are characters of a word.
  EXPECT_EQ(sentences("Uno.\x1c" "Dos."), (Texts{"Uno.\x1c" "Dos."}));
}

TEST(SentenceSplitter, LeadingWhitespaceIsThePrefixTrailingWhitespaceTheLastSeparator) {
  const SplitText split = split_sentences("  \n Hola. Adiós.  \n");
  EXPECT_EQ(split.prefix, "  \n ");
  EXPECT_EQ(texts_of(split), (Texts{"Hola.", "Adiós."}));
  EXPECT_EQ(split.segments[0].separator, " ");
  EXPECT_EQ(split.segments[1].separator, "  \n");
}

TEST(SentenceSplitter, EmptyAndBlankInputHaveNoSentenceButRoundTrip) {
  for (const std::string input : {"", "   ", "\n\n", "\t\xC2\xA0\r\n"}) {
    const SplitText split = split_sentences(input);
    EXPECT_TRUE(split.segments.empty());
    EXPECT_EQ(split.prefix, input);
    EXPECT_EQ(join_segments(split, {}), input);
  }
}

TEST(SentenceSplitter, TextWithoutTerminalPunctuationIsOneSentence) {
  EXPECT_EQ(sentences("Sin puntuación final"), (Texts{"Sin puntuación final"}));
  EXPECT_EQ(sentences("Hola, mundo; y más: Adiós"), (Texts{"Hola, mundo; y más: Adiós"}));
}

TEST(SentenceSplitter, InvalidUtf8IsOpaque) {
  EXPECT_EQ(sentences("\xFF\xFE. \x80Hola. Ya \xC3"), (Texts{"\xFF\xFE. \x80Hola.", "Ya \xC3"}));
  EXPECT_EQ(sentences("Fin. \xC3"), (Texts{"Fin. \xC3"}));  // a truncated letter starts nothing
  EXPECT_EQ(sentences("Fin.\xC0\xA0" "Otra"), (Texts{"Fin.\xC0\xA0" "Otra"}));  // an overlong space is no space
}

TEST(SentenceSplitter, JoinPutsTranslationsBetweenTheOriginalSeparators) {
  const SplitText split = split_sentences(" Hola.  ¿Cómo estás?\n\nAdiós. ");
  EXPECT_EQ(join_segments(split, {"Hello.", "How are you?", "Bye."}), " Hello.  How are you?\n\nBye. ");
  EXPECT_THROW(join_segments(split, {"Hello."}), DataError);
}

TEST(SentenceSplitter, ExamplesRoundTrip) {
  for (const std::string& example : kExamples) expect_well_formed(example);
}

TEST(SentenceSplitter, RandomTextRoundTrips) {
  const std::vector<std::string> alphabet = {
      "a", "b", "Z", "J", "é", "Ñ", "Á", "ω", "Д", "3", ".", ".", "!", "?", "…", "¿", "¡", "\"", "'", "«", "»",
      "(", ")", "]", "“", "”", "—", " ", " ", " ", "\t", "\n", "\r", "\xC2\xA0", "\xE2\x80\xA8", "Sr", "e.g",
      "\xFF", "\xC3", "\x80"};
  std::uint64_t state = 20240601;  // a fixed seed: the same strings on every run
  auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::size_t>(state >> 33);
  };
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    const std::size_t length = next() % 40;
    for (std::size_t k = 0; k < length; ++k) text += alphabet[next() % alphabet.size()];
    expect_well_formed(text);
    if (HasFailure()) break;
  }
}

}  // namespace
}  // namespace nmt
