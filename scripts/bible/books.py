"""The 66 books shared by the three modules, and book-name lookup.

Names are spelled as ``diatheke -l en`` prints them (``I Samuel``,
``Revelation of John``); the OSIS abbreviation is accepted on the command line
as well, so ``--test-books 1Sam Rev`` and ``--test-books "1 Samuel"`` work.
"""

from __future__ import annotations

import re

from . import PrepareError

# (diatheke English name, OSIS id).  Order is canonical Protestant order.
BOOKS: tuple[tuple[str, str], ...] = (
    ("Genesis", "Gen"), ("Exodus", "Exod"), ("Leviticus", "Lev"),
    ("Numbers", "Num"), ("Deuteronomy", "Deut"), ("Joshua", "Josh"),
    ("Judges", "Judg"), ("Ruth", "Ruth"), ("I Samuel", "1Sam"),
    ("II Samuel", "2Sam"), ("I Kings", "1Kgs"), ("II Kings", "2Kgs"),
    ("I Chronicles", "1Chr"), ("II Chronicles", "2Chr"), ("Ezra", "Ezra"),
    ("Nehemiah", "Neh"), ("Esther", "Esth"), ("Job", "Job"),
    ("Psalms", "Ps"), ("Proverbs", "Prov"), ("Ecclesiastes", "Eccl"),
    ("Song of Solomon", "Song"), ("Isaiah", "Isa"), ("Jeremiah", "Jer"),
    ("Lamentations", "Lam"), ("Ezekiel", "Ezek"), ("Daniel", "Dan"),
    ("Hosea", "Hos"), ("Joel", "Joel"), ("Amos", "Amos"),
    ("Obadiah", "Obad"), ("Jonah", "Jonah"), ("Micah", "Mic"),
    ("Nahum", "Nah"), ("Habakkuk", "Hab"), ("Zephaniah", "Zeph"),
    ("Haggai", "Hag"), ("Zechariah", "Zech"), ("Malachi", "Mal"),
    ("Matthew", "Matt"), ("Mark", "Mark"), ("Luke", "Luke"),
    ("John", "John"), ("Acts", "Acts"), ("Romans", "Rom"),
    ("I Corinthians", "1Cor"), ("II Corinthians", "2Cor"),
    ("Galatians", "Gal"), ("Ephesians", "Eph"), ("Philippians", "Phil"),
    ("Colossians", "Col"), ("I Thessalonians", "1Thess"),
    ("II Thessalonians", "2Thess"), ("I Timothy", "1Tim"),
    ("II Timothy", "2Tim"), ("Titus", "Titus"), ("Philemon", "Phlm"),
    ("Hebrews", "Heb"), ("James", "Jas"), ("I Peter", "1Pet"),
    ("II Peter", "2Pet"), ("I John", "1John"), ("II John", "2John"),
    ("III John", "3John"), ("Jude", "Jude"), ("Revelation of John", "Rev"),
)

BOOK_NAMES: tuple[str, ...] = tuple(name for name, _ in BOOKS)
BOOK_INDEX: dict[str, int] = {name: i for i, name in enumerate(BOOK_NAMES)}

# Range queries handed to diatheke: the Old and New Testament of the shared
# canon, leaving out the WEB's deuterocanonical books (which sit between).
CANON_QUERY = "Genesis 1:1 - Malachi 4:6; Matthew 1:1 - Revelation 22:21"

# Pauline epistles and Hebrews: the RV1909 and KJV end them with a
# subscription ("Written from Rome ...") that is not scripture text and that
# the WEB does not have; see editions.strip_colophon.
COLOPHON_BOOKS = frozenset(BOOK_NAMES[BOOK_INDEX["Romans"]:BOOK_INDEX["Hebrews"] + 1])

_ALIASES = {
    "revelation": "Revelation of John", "apocalypse": "Revelation of John",
    "songofsongs": "Song of Solomon", "canticles": "Song of Solomon",
    "psalm": "Psalms", "qoheleth": "Ecclesiastes",
}


def _key(text: str) -> str:
    """Lookup key: case-folded, no spaces/dots, Arabic ordinals as Roman."""
    text = text.strip().casefold()
    text = re.sub(r"^([123])\s*", lambda m: "i" * int(m.group(1)), text)
    return re.sub(r"[\s.]+", "", text)


_LOOKUP: dict[str, str] = {}
for _name, _osis in BOOKS:
    _LOOKUP[_key(_name)] = _name
    _LOOKUP[_key(_osis)] = _name
for _alias, _name in _ALIASES.items():
    _LOOKUP[_key(_alias)] = _name


def resolve_book(text: str) -> str:
    """Canonical book name for a user-supplied name or OSIS id."""
    name = _LOOKUP.get(_key(text))
    if name is None:
        raise PrepareError(
            f"unknown book name {text!r} (use e.g. 'Ruth', 'I Samuel', '1Sam' or 'Rev')")
    return name
