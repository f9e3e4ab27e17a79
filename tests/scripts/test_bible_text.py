"""Markup stripping, normalisation and edition-specific cleaning."""

import collections
import os
import sys
import unittest

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts")
sys.path.insert(0, os.path.abspath(SCRIPTS))

from bible import editions, osis_text, sword  # noqa: E402
from bible.sword import RawVerse  # noqa: E402


class StripMarkupTest(unittest.TestCase):
    def test_adjacent_words_keep_a_space(self):
        # WEB Genesis 1:1 as diatheke prints it.
        raw = ("<w>In</w> <w>the</w> <w>beginning</w>, <w>God</w><w>created</w> <w>the</w> "
               "<w>heavens</w> <w>and</w> <w>the</w> <w>earth</w>.<milestone type=\"line\"/>")
        self.assertEqual(osis_text.clean(raw),
                         "In the beginning, God created the heavens and the earth.")

    def test_text_glued_to_an_element_is_split(self):
        # RV1909 Genesis 2:12 and WEB Exodus 2:22.
        self.assertEqual(osis_text.clean("<w>hay allí</w>también<w>bdelio</w>"),
                         "hay allí también bdelio")
        self.assertEqual(osis_text.clean("She conceived</w>,<w>and bore"),
                         "She conceived, and bore")

    def test_kjv_partial_word_elements_are_joined(self):
        raw = "<w>shall</w> <w>more</w> <w>be give</w>n.<milestone type=\"line\"/>"
        self.assertEqual(osis_text.clean(raw, tags_split_words=False), "shall more be given.")

    def test_apostrophes_and_quotes(self):
        raw = "<w>Now</w> <w>Yahweh’s</w><w>word</w> <w>came</w>, “<w>Let</w> <w>it</w>”"
        self.assertEqual(osis_text.clean(raw), "Now Yahweh’s word came, “Let it”")

    def test_notes_and_titles_are_removed_with_content(self):
        raw = ("<w>Abram</w><note type=\"translation\" n=\"a\">“Abram” means "
               "“exalted father.”</note> <w>went</w>.<title type=\"x-heading\">Heading</title>")
        self.assertEqual(osis_text.clean(raw), "Abram went.")

    def test_line_breaks_become_spaces(self):
        raw = "<l level=\"1\" sID=\"x\"/>How the city<l level=\"1\" eID=\"x\"/>sits solitary"
        self.assertEqual(osis_text.clean(raw), "How the city sits solitary")

    def test_usfm_residue_and_entities(self):
        self.assertEqual(osis_text.clean(r"the \nd <w>LORD</w> &amp; you", False),
                         "the LORD & you")


class NormaliseTest(unittest.TestCase):
    def test_whitespace(self):
        self.assertEqual(osis_text.normalise("  a \t b\u00a0\n c  "), "a b c")

    def test_punctuation_spacing(self):
        self.assertEqual(osis_text.normalise("Jonás , y ( Selah . ) ¿ Quién ? ¡ Oh !"),
                         "Jonás, y (Selah.) ¿Quién? ¡Oh!")
        self.assertEqual(osis_text.normalise("said , “ Go ” ;"), "said, “Go”;")

    def test_pilcrow(self):
        self.assertEqual(osis_text.normalise("¶ And God said"), "And God said")

    def test_nfc(self):
        self.assertEqual(osis_text.normalise("Jehova\u0301"), "Jehová")


def raw(book, chapter, verse, body, heading=""):
    return RawVerse(book, chapter, verse, heading, body)


class EditionRulesTest(unittest.TestCase):
    def clean(self, verses, edition=sword.TARGET):
        counts = collections.Counter()
        books = editions.clean_edition(verses, edition, counts)
        return books, counts

    def test_psalm_title_goes_in_front_of_verse_one(self):
        books, counts = self.clean([
            raw("Psalms", 3, 1, "<w>Yahweh</w>, how", "A Psalm by David.  "),
            raw("Psalms", 3, 2, "<w>Many</w> say"),
        ])
        self.assertEqual(books["Psalms"][0].text, "A Psalm by David. Yahweh, how")
        self.assertEqual(books["Psalms"][1].text, "Many say")
        self.assertEqual(counts["psalm_titles_prefixed"], 1)

    def test_other_headings_are_dropped(self):
        books, counts = self.clean([
            raw("Song of Solomon", 1, 2, "Let him kiss me", "Beloved  "),
            raw("Psalms", 119, 9, "How can a young man", "BETH  "),
        ])
        self.assertEqual(books["Song of Solomon"][0].text, "Let him kiss me")
        self.assertEqual(books["Psalms"][0].text, "How can a young man")
        self.assertEqual(counts["headings_dropped"], 2)

    def test_psalm_119_letters_in_the_text(self):
        books, counts = self.clean([
            raw("Psalms", 119, 1, "ALEPH. <w>BIENAVENTURADOS</w> <w>los perfectos</w>"),
            raw("Psalms", 119, 9, "BETH ¿<w>Con qué</w>"),
        ], sword.SOURCE)
        self.assertEqual([v.text for v in books["Psalms"]],
                         ["Bienaventurados los perfectos", "¿Con qué"])
        self.assertEqual(counts["psalm119_letters_removed"], 2)

    def test_glossary_is_cut(self):
        books, counts = self.clean([raw(
            "Revelation of John", 22, 21,
            "<w>The</w> <w>grace</w> saints. Amen.         World English Bible Glossary   "
            "The following words ... Abba Abba is a Chaldee word")])
        self.assertEqual(books["Revelation of John"][0].text, "The grace saints. Amen.")
        self.assertGreater(counts["appendix_chars_removed"], 40)

    def test_colophon_after_the_last_amen(self):
        books, counts = self.clean([
            raw("Philemon", 1, 24, "Marcus, Aristarchus."),
            raw("Philemon", 1, 25, "The grace be with your spirit. Amen. "
                                   "Written from Rome to Philemon, by Onesimus, a servant."),
        ], sword.REFERENCE)
        self.assertEqual(books["Philemon"][1].text, "The grace be with your spirit. Amen.")
        self.assertEqual(counts["colophons_removed"], 1)
        # Not outside the epistles.
        books, counts = self.clean([raw("Jude", 1, 25, "for ever. Amen. Extra.")])
        self.assertEqual(books["Jude"][0].text, "for ever. Amen. Extra.")

    def test_chapter_initials_are_recased_from_usage(self):
        books, counts = self.clean([
            raw("Jonah", 1, 1, "Y FUÉ palabra de Jehová á Jonás"),
            raw("Jonah", 1, 2, "Levántate, y ve á Nínive, y fué así; y Jehová dijo"),
            raw("Jonah", 2, 1, "MAS Jehová había prevenido"),
            raw("Jonah", 3, 1, "A JEHOVÁ llamé; y fué oído"),
            raw("Jonah", 4, 1, "Cántico gradual. ALEGRÉME con los que me decían"),
        ], sword.SOURCE)
        self.assertEqual([v.text for v in books["Jonah"]], [
            "Y fué palabra de Jehová á Jonás",
            "Levántate, y ve á Nínive, y fué así; y Jehová dijo",
            "Mas Jehová había prevenido",
            "A Jehová llamé; y fué oído",
            "Cántico gradual. Alegréme con los que me decían"])
        self.assertEqual(counts["chapter_initials_recased"], 4)


class ParseOutputTest(unittest.TestCase):
    def test_headings_continuations_and_module_line(self):
        text = ("Psalms 2:12: <w>Kiss</w> the son\n"
                "A Psalm by David.  Psalms 3:1: <w>Yahweh</w>, how\n"
                "and more of 3:1\n"
                "Beloved  Song of Solomon 1:2: Let him\n"
                "I John 1:1: That which\n"
                "(engWEB2015eb) \n")
        verses = sword.parse_output(text, "engWEB2015eb")
        self.assertEqual([(v.book, v.chapter, v.verse) for v in verses],
                         [("Psalms", 2, 12), ("Psalms", 3, 1), ("Song of Solomon", 1, 2),
                          ("I John", 1, 1)])
        self.assertEqual(verses[1].heading, "A Psalm by David.  ")
        self.assertEqual(verses[1].body, "<w>Yahweh</w>, how\nand more of 3:1")
        self.assertEqual(verses[2].heading, "Beloved  ")


if __name__ == "__main__":
    unittest.main()
