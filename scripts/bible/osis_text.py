"""OSIS markup stripping and text normalisation (edition-independent).

diatheke's OSIS output marks words with ``<w>`` elements.  In the RV1909 and
the WEB the spaces between some words were lost when the modules were built
(``<w>God</w><w>created</w>``, ``<w>hay allí</w>también``), so a tag sitting
between two letters has to become a space.  In the KJV the same position means
the opposite: ``<w>give</w>n`` is one word, "given", whose Strong's-tagged
part is inside the element.  Which rule applies is a per-edition setting
(``tags_split_words``).
"""

from __future__ import annotations

import html
import re
import unicodedata

# Elements whose content is not verse text: notes (footnotes, cross
# references), headings and other editorial material.
_DROP_WITH_CONTENT = re.compile(
    r"<(note|title|rdg|figure)\b[^>]*?(?<!/)>.*?</\1\s*>", re.DOTALL)
# Tags that stand for a line or paragraph break: always a space.
_BREAK_TAG = re.compile(r"</?(?:milestone|l|lg|lb|p|div|br)\b[^<>]*>")
# A run of (non-break) tags squeezed between two letters or digits, or
# between closing punctuation and a letter ("conceived</w>,<w>and" in the
# WEB).  It starts with a literal "<" so the regex engine can skip ahead.
_TAGS_INSIDE_WORD = re.compile(
    r"<(?<=[^\W_]<|[,;:.!?)\]”]<)[^<>]*>(?:<[^<>]*>)*(?=[^\W_])")
_TAG = re.compile(r"<[^<>]*>")
# USFM character markers left in module text (the KJV has "\\nd LORD" 27 times).
_USFM_MARKER = re.compile(r"\\\+?[a-z]+[0-9]*(?:\*|[ ]?)")

PILCROW = "\u00b6"

# Spacing around punctuation.  Closing marks take no space before them and
# opening marks none after them.  Quotes are only touched where the side is
# unambiguous (“ and « open, ” and » close); ' and ’ are also apostrophes.
_SPACE_BEFORE_CLOSER = re.compile(r"\s+([,.;:!?)\]}»”])")
_SPACE_AFTER_OPENER = re.compile(r"([(\[{«¿¡“])\s+")


def strip_markup(text: str, tags_split_words: bool = True) -> str:
    """Remove OSIS/XML markup, keeping word boundaries.

    Notes and titles inside the text are removed with their content.  Break
    elements (milestone, l, lg, lb, p, div) become a space.  Other tags
    vanish, except that with ``tags_split_words`` a run of tags between two
    letters or digits, or after closing punctuation and before a letter,
    becomes a space.  Stray USFM markers (backslash nd) are removed.
    """
    text = _DROP_WITH_CONTENT.sub(" ", text)
    text = _BREAK_TAG.sub(" ", text)
    if tags_split_words:
        text = _TAGS_INSIDE_WORD.sub(" ", text)
    text = _TAG.sub("", text)
    if "\\" in text:
        text = _USFM_MARKER.sub("", text)
    # The text itself may still hold character entities (&amp; ...).
    return html.unescape(text)


def normalise(text: str) -> str:
    """Unicode NFC, no pilcrows, single spaces, normal punctuation spacing."""
    if not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    text = " ".join(text.replace(PILCROW, " ").split())
    text = _SPACE_BEFORE_CLOSER.sub(r"\1", text)
    text = _SPACE_AFTER_OPENER.sub(r"\1", text)
    return text


def clean(text: str, tags_split_words: bool = True) -> str:
    """strip_markup followed by normalise."""
    return normalise(strip_markup(text, tags_split_words))
