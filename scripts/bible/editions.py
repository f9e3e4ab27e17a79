"""Edition-specific cleaning: headings, Psalm titles, appendices, initials.

The rules, and the reason for each (verified on the Debian 12 modules):

* Psalm titles.  The RV1909 keeps a Psalm's title inside verse 1 ("Salmo de
  David, cuando huía ... ¡OH Jehová, ..."); the WEB and KJV print it as a
  heading before verse 1.  The English title is put in front of verse 1 so
  both sides say the same thing.
* Other headings (WEB speaker labels "Beloved"/"Lover" in the Song of
  Solomon, the Hebrew letters of Psalm 119) are dropped; the RV1909 writes the
  Psalm 119 letters into the verse ("ALEPH. BIENAVENTURADOS ..."), removed too.
* The WEB appends its glossary (~18,000 characters) to Revelation 22:21.
* The RV1909 and KJV end the Pauline epistles and Hebrews with a subscription
  ("Written from Rome ...") after the final "Amen."; the WEB has none.
* The RV1909 prints the first word(s) of every chapter in capitals
  ("EN el principio", "Y ACONTECIÓ"); they are re-cased from how the same
  words are written elsewhere in the edition ("A JEHOVÁ" -> "A Jehová").
"""

from __future__ import annotations

import collections
import re
from dataclasses import dataclass

from .books import COLOPHON_BOOKS
from .osis_text import PILCROW, clean
from .sword import Edition, RawVerse


@dataclass
class Verse:
    book: str
    chapter: int
    verse: int
    text: str


GLOSSARY_MARKER = "World English Bible Glossary"
_AMEN = re.compile(r"\b(?:Amen|Amén)\s*\.", re.IGNORECASE)
_HEBREW_LETTERS = (
    "ALEPH BETH GIMEL DALETH HE VAU VAV ZAIN ZAYIN CHETH HETH TETH JOD YODH "
    "CAPH KAPH KAPF LAMED LAMEDH MEM NUN SAMECH SAMEKH AIN AYIN PE TZADDI TZADHE "
    "COPH KOPH QOPH RESH SIN SHIN SCHIN TAU TAV").split()
_PS119_LETTER = re.compile(
    r"^[\u05d0-\u05ea]?\s*(?:%s)(?:\s+AND\s+SHIN)?\.?\s+" % "|".join(_HEBREW_LETTERS))
_WORD = re.compile(r"[^\W\d_]+")
_OPENERS = "([«“‘¡¿"
_CLOSERS = ")]»”’"
_SENTENCE_INITIAL = re.compile(r"(?:^|[.:;!?][)\]»”’]* )[(\[«“‘¡¿]*([^\W\d_]+)")


def _is_caps(word: str) -> bool:
    return word.isalpha() and word.isupper()


def _at_sentence_start(text: str, pos: int) -> bool:
    """True if the word at ``pos`` starts the text or follows . : ; ! or ?"""
    i = pos
    while i > 0 and text[i - 1] in _OPENERS:
        i -= 1
    if i == 0:
        return True
    if text[i - 1] != " ":
        return False
    i -= 1
    while i > 0 and text[i - 1] in _CLOSERS:
        i -= 1
    return i > 0 and text[i - 1] in ".:;!?"


def clean_edition(raw: list[RawVerse], edition: Edition,
                  counts: collections.Counter) -> dict[str, list[Verse]]:
    """Clean one edition's verses, grouped by book in reading order.

    ``counts`` receives how often each rule fired (keys are documented in
    docs/data.md).
    """
    books: dict[str, list[Verse]] = {}
    for rv in raw:
        counts["pilcrows"] += rv.body.count(PILCROW)
        text = clean(rv.body, edition.tags_split_words)
        heading = clean(rv.heading, edition.tags_split_words)
        if rv.book == "Psalms" and rv.chapter == 119:
            if heading:
                counts["headings_dropped"] += 1
            text, n = _PS119_LETTER.subn("", text)
            counts["psalm119_letters_removed"] += n
        elif heading and rv.book == "Psalms" and rv.verse == 1:
            text = f"{heading} {text}".strip()
            counts["psalm_titles_prefixed"] += 1
        elif heading:
            counts["headings_dropped"] += 1
        cut = text.find(GLOSSARY_MARKER)
        if cut >= 0:
            counts["appendix_chars_removed"] += len(text) - cut
            text = text[:cut].rstrip()
        books.setdefault(rv.book, []).append(Verse(rv.book, rv.chapter, rv.verse, text))
    for book in COLOPHON_BOOKS & books.keys():
        if strip_colophon(books[book]):
            counts["colophons_removed"] += 1
    if edition.recase_chapter_initials:
        counts["chapter_initials_recased"] += recase_chapter_initials(books)
    return books


def strip_colophon(verses: list[Verse]) -> bool:
    """Cut text after the last "Amen." of the book's last non-empty verse."""
    for v in reversed(verses):
        if v.text:
            amens = list(_AMEN.finditer(v.text))
            if amens and v.text[amens[-1].end():].strip():
                v.text = v.text[:amens[-1].end()]
                return True
            return False
    return False


def _casing_table(books: dict[str, list[Verse]]) -> dict[str, str]:
    """Lower-cased word -> its usual written form, from non-initial verses.

    Occurrences at a sentence start do not count; a word written capitalised
    more often than not is a name ("Jehová", "Dios") and keeps its capital.
    """
    forms: collections.Counter = collections.Counter()
    initial: collections.Counter = collections.Counter()
    for verses in books.values():
        for v in verses:
            if v.verse != 1:
                forms.update(_WORD.findall(v.text))
                initial.update(_SENTENCE_INITIAL.findall(v.text))
    capital: collections.Counter = collections.Counter()
    lower: collections.Counter = collections.Counter()
    for form, n in forms.items():
        n -= initial[form]
        if n <= 0 or (len(form) > 1 and form.isupper()):
            continue
        (capital if form[0].isupper() else lower)[form.lower()] += n
    return {key: key.capitalize() for key in capital if capital[key] > lower[key]}


def recase_chapter_initials(books: dict[str, list[Verse]]) -> int:
    """Re-case the capitalised opening words of each chapter; return count."""
    table = _casing_table(books)
    changed = 0
    for verses in books.values():
        for v in verses:
            if v.verse != 1 or not v.text:
                continue
            new = _recase_first_caps_run(v.text, table)
            if new != v.text:
                v.text = new
                changed += 1
    return changed


def _recase_first_caps_run(text: str, table: dict[str, str]) -> str:
    """Re-case the first run of all-capital words with one of 2+ letters."""
    words = list(_WORD.finditer(text))
    for i, m in enumerate(words):
        if not _is_caps(m.group(0)):
            continue
        run = [m]
        for nxt in words[i + 1:]:
            gap = text[run[-1].end():nxt.start()]
            if gap != " " or not _is_caps(nxt.group(0)):
                break
            run.append(nxt)
        if all(len(w.group(0)) < 2 for w in run):
            continue
        out = []
        for j, w in enumerate(run):
            word = w.group(0).lower()
            word = table.get(word, word)
            if j == 0 and _at_sentence_start(text, w.start()):
                word = word[:1].upper() + word[1:]
            out.append(word)
        start, end = run[0].start(), run[-1].end()
        return text[:start] + " ".join(out) + text[end:]
    return text
