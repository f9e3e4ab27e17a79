"""Run diatheke and parse its OSIS output into raw verses.

Why these options (checked with diatheke 4.8 / SWORD 1.9.0 on Debian 12):

* ``-o h`` (section headings on).  Without it diatheke repeats the last
  pre-verse heading in front of every following verse of the run ("A praise
  psalm by David." from Psalm 145 appears before every verse up to
  Revelation), so a heading cannot be told from a stale copy.  With ``-o h``
  each heading is printed once, before the verse it belongs to.
* ``-l en`` so book names do not depend on the caller's locale.
* One range query per module (about 5-11 s each); the three run in parallel.

Output lines look like ``[heading]Book C:V: text``; a verse may continue on
following lines; the last line is ``(module)``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass

from . import PrepareError
from .books import BOOK_NAMES, CANON_QUERY


@dataclass(frozen=True)
class Edition:
    """One SWORD module and how its text has to be treated."""
    module: str
    package: str            # Debian package that installs it
    tags_split_words: bool  # see osis_text.strip_markup
    description: str
    recase_chapter_initials: bool = False  # see editions.recase_chapter_initials


SOURCE = Edition("spaRV1909eb", "sword-text-sparv", True, "Reina-Valera 1909", True)
TARGET = Edition("engWEB2015eb", "sword-text-web", True, "World English Bible")
REFERENCE = Edition("engKJV2006eb", "sword-text-kjv", False, "King James Version")
EDITIONS = (SOURCE, TARGET, REFERENCE)


@dataclass
class RawVerse:
    """A verse as diatheke printed it: heading prefix and OSIS body."""
    book: str
    chapter: int
    verse: int
    heading: str
    body: str


_BOOK_ALT = "|".join(re.escape(name) for name in sorted(BOOK_NAMES, key=len, reverse=True))
_VERSE_LINE = re.compile(
    rf"^(?P<heading>.*?)(?P<book>{_BOOK_ALT}) (?P<ch>\d+):(?P<vs>\d+): ?(?P<body>.*)$")


def find_diatheke(path: str | None) -> str:
    """Absolute path of the diatheke executable, or PrepareError."""
    hint = "install the Debian package diatheke"
    if path is None:
        found = shutil.which("diatheke")
        if found is None:
            raise PrepareError(f"diatheke not found on PATH ({hint})")
        return found
    if os.sep not in path:
        path = shutil.which(path) or path
    if os.path.isdir(path) or not os.access(path, os.X_OK):
        raise PrepareError(f"diatheke not found at {path!r} ({hint})")
    return os.path.abspath(path)


def _command(diatheke: str, module: str, *options: str) -> list[str]:
    # The key must be the last argument: diatheke joins everything after -k.
    return [diatheke, "-b", module, *options]


def installed_modules(diatheke: str) -> set[str]:
    """Names of the installed SWORD modules."""
    cmd = _command(diatheke, "system", "-k", "modulelist")
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=60,
                              encoding="utf-8", errors="replace")
    except OSError as exc:
        raise PrepareError(f"cannot run {diatheke}: {exc.strerror} "
                           "(install the Debian package diatheke)") from None
    except subprocess.TimeoutExpired:
        raise PrepareError(f"{diatheke} -b system -k modulelist timed out") from None
    if done.returncode != 0:
        raise PrepareError(f"{diatheke} -b system -k modulelist failed "
                           f"with status {done.returncode}")
    return set(re.findall(r"^(\S+) : ", done.stdout, re.MULTILINE))


def check_modules(diatheke: str, editions=EDITIONS) -> None:
    """PrepareError naming the first missing module and its package."""
    have = installed_modules(diatheke)
    for edition in editions:
        if edition.module not in have:
            raise PrepareError(
                f"SWORD module {edition.module} ({edition.description}) is not installed "
                f"(install the Debian package {edition.package})")


def start_dump(diatheke: str, edition: Edition, query: str = CANON_QUERY) -> subprocess.Popen:
    """Start diatheke on ``query``; read it with finish_dump."""
    cmd = _command(diatheke, edition.module, "-o", "h", "-f", "OSIS", "-l", "en", "-k", query)
    # Output goes to unnamed temporary files, not pipes: with several dumps
    # running at once a full pipe would stall a process nobody is reading.
    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    try:
        process = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
    except OSError as exc:
        out.close()
        err.close()
        raise PrepareError(f"cannot run {diatheke}: {exc.strerror}") from None
    process.outputs = (out, err)  # type: ignore[attr-defined]
    return process


def finish_dump(process: subprocess.Popen, edition: Edition) -> list[RawVerse]:
    """Wait for a start_dump process and parse what it printed."""
    process.wait()
    out_file, err_file = process.outputs  # type: ignore[attr-defined]
    with out_file, err_file:
        out_file.seek(0)
        err_file.seek(0)
        out, err = out_file.read(), err_file.read()
    if process.returncode != 0:
        first = err.decode("utf-8", "replace").strip().splitlines()[:1]
        raise PrepareError(f"diatheke failed on {edition.module} with status "
                           f"{process.returncode}: {' '.join(first)}".rstrip(": "))
    verses = parse_output(out.decode("utf-8", "replace"), edition.module)
    if not verses:
        raise PrepareError(f"diatheke printed no verses for {edition.module} "
                           f"(reinstall the Debian package {edition.package})")
    return verses


def read_edition(diatheke: str, edition: Edition, query: str = CANON_QUERY) -> list[RawVerse]:
    """Dump and parse one module (sequentially)."""
    return finish_dump(start_dump(diatheke, edition, query), edition)


def parse_output(text: str, module: str) -> list[RawVerse]:
    """Split diatheke OSIS output into verses; continuation lines are joined."""
    lines = text.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    if lines and lines[-1].strip() == f"({module})":
        lines.pop()
    verses: list[RawVerse] = []
    for line in lines:
        match = _VERSE_LINE.match(line)
        if match:
            verses.append(RawVerse(match["book"], int(match["ch"]), int(match["vs"]),
                                   match["heading"], match["body"]))
        elif verses:
            verses[-1].body += "\n" + line
        elif line.strip():
            raise PrepareError(f"unexpected diatheke output for {module}: {line[:60]!r}")
    return verses
