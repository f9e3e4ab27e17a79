"""The train/dev/test split, book-name lookup and the atomic writer."""

import hashlib
import os
import random
import sys
import tempfile
import unittest

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts")
sys.path.insert(0, os.path.abspath(SCRIPTS))

from bible import PrepareError, books, split, writer  # noqa: E402
from bible.segments import Segment  # noqa: E402


def make_segments():
    segs = []
    for book in ("Genesis", "Ruth", "Psalms", "Jonah", "Matthew", "James"):
        for i in range(150):
            ref = f"{book} {i // 20 + 1}:{i % 20 + 1}"
            kjv = None if i % 7 == 0 else f"kjv {ref}"
            segs.append(Segment(book, i, f"es {ref}", f"en {ref}", kjv, ref, ref,
                                ref if kjv else None))
    return segs


class SplitTest(unittest.TestCase):
    def test_deterministic_and_independent_of_input_order(self):
        segs = make_segments()
        first, drops1 = split.split_segments(segs, ["Ruth", "Jonah"], 100)
        shuffled = list(segs)
        random.Random(7).shuffle(shuffled)
        second, drops2 = split.split_segments(shuffled, ["Jonah", "Ruth"], 100)
        for name in split.SPLITS:
            self.assertEqual([s.es_ref for s in first[name]], [s.es_ref for s in second[name]])
        self.assertEqual(drops1, drops2)

    def test_test_books_are_held_out(self):
        parts, drops = split.split_segments(make_segments(), ["Ruth", "Jonah"], 100)
        self.assertEqual({s.book for s in parts["test"]}, {"Ruth", "Jonah"})
        for name in ("train", "dev"):
            self.assertFalse({s.book for s in parts[name]} & {"Ruth", "Jonah"})
        self.assertEqual(len(parts["dev"]), 100)
        # Test and dev lines all have a KJV line; test lines without are counted.
        self.assertTrue(all(s.kjv for s in parts["dev"] + parts["test"]))
        self.assertEqual(drops["test_without_kjv"], 2 * 22)
        self.assertEqual(len(parts["train"]) + len(parts["dev"]), 4 * 150)
        # Lines come out in canonical order.
        keys = [split.canonical_order(s) for s in parts["train"]]
        self.assertEqual(keys, sorted(keys))

    def test_dev_is_spread_over_books(self):
        parts, _ = split.split_segments(make_segments(), ["Ruth", "Jonah"], 100)
        self.assertEqual({s.book for s in parts["dev"]}, {"Genesis", "Psalms", "Matthew", "James"})

    def test_dev_key_is_a_stable_hash(self):
        # SHA-1 of the Spanish reference, not Python's per-process hash().
        seg = make_segments()[0]
        self.assertEqual(split.dev_key(seg), hashlib.sha1(b"Genesis 1:1").hexdigest())


class BookNamesTest(unittest.TestCase):
    def test_sixty_six_books(self):
        self.assertEqual(len(books.BOOK_NAMES), 66)
        self.assertEqual(len(books.COLOPHON_BOOKS), 14)

    def test_resolve(self):
        self.assertEqual(books.resolve_book("1 samuel"), "I Samuel")
        self.assertEqual(books.resolve_book("1Sam"), "I Samuel")
        self.assertEqual(books.resolve_book("3John"), "III John")
        self.assertEqual(books.resolve_book("Revelation"), "Revelation of John")
        self.assertEqual(books.resolve_book("song of songs"), "Song of Solomon")
        self.assertEqual(books.resolve_book("Isaiah"), "Isaiah")
        with self.assertRaises(PrepareError):
            books.resolve_book("Tobit")


class WriterTest(unittest.TestCase):
    def test_replaces_only_on_success(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "sub", "corpus")
            writer.write_atomically(out, {"a.txt": writer.lines_file(["x", "y"]), "stats.json": ""})
            with open(os.path.join(out, "a.txt"), encoding="utf-8") as f:
                self.assertEqual(f.read(), "x\ny\n")
            writer.write_atomically(out, {"stats.json": "{}"})
            self.assertEqual(os.listdir(out), ["stats.json"])
            with self.assertRaises(TypeError):  # fails half-way through
                writer.write_atomically(out, {"c.txt": "ok", "d.txt": None})
            self.assertEqual(os.listdir(out), ["stats.json"])
            self.assertEqual(os.listdir(os.path.dirname(out)), ["corpus"])

    def test_refuses_to_replace_a_foreign_directory(self):
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "precious"), "w", encoding="utf-8") as f:
                f.write("data\n")
            with self.assertRaises(PrepareError):
                writer.write_atomically(tmp, {"stats.json": "{}"})
            self.assertEqual(os.listdir(tmp), ["precious"])

    def test_line_breaks_are_refused(self):
        with self.assertRaises(ValueError):
            writer.lines_file(["a\nb"])


if __name__ == "__main__":
    unittest.main()
