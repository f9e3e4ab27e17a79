"""Train/dev/test split: whole books for test, a hashed sample for dev.

Verses of one book share names, formulae and style, so a random verse-level
test set would be too easy; test is made of whole books instead (see
docs/data.md for why these).  Dev is drawn from the other books by a stable
hash of the Spanish reference (SHA-1, not Python's salted ``hash()``), so
every run selects the same lines.
"""

from __future__ import annotations

import collections
import hashlib

from .books import BOOK_INDEX
from .segments import Segment

# Mixed genre, ~1,250 verses, no book with long near-verbatim parallels
# elsewhere (unlike the synoptic gospels, Samuel-Kings/Chronicles, Jude/2
# Peter or Ephesians/Colossians).
DEFAULT_TEST_BOOKS = ("Ruth", "Esther", "Ecclesiastes", "Lamentations", "Daniel",
                      "Jonah", "Philippians", "James")
DEFAULT_DEV_SIZE = 1000
SPLITS = ("train", "dev", "test")


def dev_key(segment: Segment) -> str:
    """Stable pseudo-random order for drawing dev lines."""
    return hashlib.sha1(segment.es_ref.encode("utf-8")).hexdigest()


def canonical_order(segment: Segment) -> tuple[int, int]:
    return (BOOK_INDEX[segment.book], segment.position)


def split_segments(segments: list[Segment], test_books, dev_size: int):
    """Return ({split: segments in canonical order}, drop counter).

    Test and dev lines need a KJV reference, so dev is drawn only from lines
    that have one, and test lines without one are dropped
    (``test_without_kjv``).  Lines of non-test books without a KJV line can
    still go to train.
    """
    test_books = set(test_books)
    drops: collections.Counter = collections.Counter()
    test, candidates, train = [], [], []
    for seg in segments:
        if seg.book in test_books:
            if seg.kjv is None:
                drops["test_without_kjv"] += 1
            else:
                test.append(seg)
        elif seg.kjv is not None:
            candidates.append(seg)
        else:
            train.append(seg)
    candidates.sort(key=dev_key)
    dev = candidates[:dev_size]
    train.extend(candidates[dev_size:])
    splits = {"train": train, "dev": dev, "test": test}
    for name in SPLITS:
        splits[name].sort(key=canonical_order)
    return splits, drops
