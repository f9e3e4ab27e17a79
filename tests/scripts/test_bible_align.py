"""The length-based aligner and segment building, on synthetic verses."""

import collections
import math
import os
import sys
import unittest

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts")
sys.path.insert(0, os.path.abspath(SCRIPTS))

from bible import align, segments  # noqa: E402
from bible.editions import Verse  # noqa: E402

MODEL = align.LengthModel(ratio=1.0, scale=1.3)


def lengths(n, seed=1):
    """Deterministic, varied verse lengths (40..152 characters)."""
    return [40 + (seed * 7 + i * 37) % 113 for i in range(n)]


def verses(book, refs_and_lengths):
    return [Verse(book, c, v, "x" * n) for (c, v), n in refs_and_lengths]


def moves(beads):
    return [b.move for b in beads]


class TailTest(unittest.TestCase):
    def test_t_tail_matches_numeric_integration(self):
        dof = 6
        const = math.gamma((dof + 1) / 2) / (math.sqrt(dof * math.pi) * math.gamma(dof / 2))

        def density(t):
            return const * (1 + t * t / dof) ** (-(dof + 1) / 2)

        for x in (0.0, 0.5, 1.0, 2.5, 6.0):
            steps, top = 20000, 200.0
            h = (top - x) / steps
            area = sum(density(x + (k + 0.5) * h) for k in range(steps)) * h
            self.assertAlmostEqual(align.t_tail(x, dof), 2 * area, places=4)

    def test_fit_length_model(self):
        pairs = [(n, round(1.1 * n)) for n in lengths(200)]
        model = align.fit_length_model(pairs)
        self.assertAlmostEqual(model.ratio, 1.1, places=2)
        self.assertLess(model.scale, 0.5)


class AlignTest(unittest.TestCase):
    def test_identity_is_all_one_to_one(self):
        src = lengths(300)
        beads = align.align(src, list(src), MODEL)
        self.assertEqual(moves(beads), [(1, 1)] * 300)
        self.assertEqual([(b.src_start, b.tgt_start) for b in beads],
                         [(i, i) for i in range(300)])

    def test_empty_sides(self):
        self.assertEqual(moves(align.align([], [50, 60], MODEL)), [(0, 1), (0, 1)])
        self.assertEqual(align.align([], [], MODEL), [])

    def test_two_to_one_merge(self):
        tgt = lengths(40)
        # Source verse 10 of the target is split in two in the source.
        src = tgt[:10] + [tgt[10] // 2, tgt[10] - tgt[10] // 2] + tgt[11:]
        beads = align.align(src, tgt, MODEL)
        self.assertEqual(moves(beads).count((2, 1)), 1)
        self.assertEqual(moves(beads).count((1, 1)), 39)
        merge = [b for b in beads if b.move == (2, 1)][0]
        self.assertEqual((merge.src_start, merge.tgt_start), (10, 10))

    def test_long_merge(self):
        tgt = lengths(60)
        # One source verse holding target verses 20..28 (like RV Job 39:30).
        src = tgt[:20] + [sum(tgt[20:29])] + tgt[29:]
        beads = align.align(src, tgt, MODEL)
        self.assertIn((1, 9), moves(beads))
        self.assertEqual(len(beads), 52)

    def test_shifted_chapter_is_recovered(self):
        # The Jonah case: the target's chapter 1 has 17 verses, the source
        # puts that last verse at 2:1 and merges the target's 2:9-10 into its
        # 2:10.  Source 1:17 is an empty placeholder (removed beforehand).
        t = lengths(27, seed=3)
        tgt_refs = [(1, v) for v in range(1, 18)] + [(2, v) for v in range(1, 11)]
        tgt = verses("Jonah", zip(tgt_refs, t))
        src_lengths = [round(n * 1.05) for n in t[:25]] + [round((t[25] + t[26]) * 1.05)]
        src_refs = [(1, v) for v in range(1, 17)] + [(2, v) for v in range(1, 11)]
        src = verses("Jonah", zip(src_refs, src_lengths))
        model = align.LengthModel(ratio=1 / 1.05, scale=1.3)
        beads = segments.align_book(src, tgt, model)
        pairs = {segments.format_ref(src[b.src_start:b.src_end]):
                 segments.format_ref(tgt[b.tgt_start:b.tgt_end]) for b in beads}
        self.assertEqual(pairs["Jonah 1:16"], "Jonah 1:16")
        self.assertEqual(pairs["Jonah 2:1"], "Jonah 1:17")
        self.assertEqual(pairs["Jonah 2:5"], "Jonah 2:4")
        self.assertEqual(pairs["Jonah 2:10"], "Jonah 2:9+2:10")
        self.assertEqual(len(beads), 26)

    def test_extra_verse_is_dropped_and_counted(self):
        t = lengths(30, seed=5)
        tgt = verses("Ruth", (((1, i + 1), n) for i, n in enumerate(t)))
        # The source has one verse more (1:15, with no English partner).
        src_l = t[:14] + [90] + t[14:]
        src = verses("Ruth", (((1, i + 1), n) for i, n in enumerate(src_l)))
        beads = segments.align_book(src, tgt, MODEL)
        self.assertEqual(moves(beads).count((1, 0)), 1)
        drop = [b for b in beads if b.move == (1, 0)][0]
        self.assertEqual(drop.src_start, 14)
        drops = collections.Counter()
        segs = segments.build_segments(src, tgt, tgt, beads, beads, MODEL, MODEL, drops)
        self.assertEqual(drops["unaligned_es"], 1)
        self.assertEqual(len(segs), 30)
        self.assertTrue(all(s.kjv is not None for s in segs))

    def test_verse_left_empty_by_the_target_is_the_one_dropped(self):
        # Like Acts 8:37: the WEB leaves 8:37 empty, the RV has it, and its
        # length is close to that of WEB 8:38, so lengths alone would pair
        # RV 8:37 with WEB 8:38 and drop RV 8:38.
        src = verses("Acts", [((8, 35), 130), ((8, 36), 115), ((8, 37), 117), ((8, 38), 88),
                              ((8, 39), 126), ((8, 40), 100)])
        tgt = verses("Acts", [((8, 35), 128), ((8, 36), 135), ((8, 38), 131), ((8, 39), 153),
                              ((8, 40), 104)])
        model = align.LengthModel(ratio=1.05, scale=1.25)
        without = segments.align_book(src, tgt, model)
        self.assertEqual([b.src_start for b in without if b.move == (1, 0)], [3])
        beads = segments.align_book(src, tgt, model, tgt_empty=frozenset({(8, 37)}))
        self.assertEqual([b.src_start for b in beads if b.move == (1, 0)], [2])
        self.assertEqual(moves(beads).count((1, 1)), 5)

    def test_kjv_must_cover_the_same_spanish_verses(self):
        src = verses("Ruth", [((1, 1), 50), ((1, 2), 50), ((1, 3), 60)])
        en = verses("Ruth", [((1, 1), 100), ((1, 3), 60)])
        kjv = verses("Ruth", [((1, 1), 50), ((1, 2), 50), ((1, 3), 60)])
        web_beads = [align.Bead(0, 2, 0, 1, 0.0), align.Bead(2, 3, 1, 2, 0.0)]
        kjv_beads = [align.Bead(0, 1, 0, 1, 0.0), align.Bead(1, 2, 1, 2, 0.0),
                     align.Bead(2, 3, 2, 3, 0.0)]
        segs = segments.build_segments(src, en, kjv, web_beads, kjv_beads, MODEL, MODEL,
                                       collections.Counter())
        # The merged pair gets both KJV verses; the other its own.
        self.assertEqual([(s.es_ref, s.en_ref, s.kjv_ref) for s in segs], [
            ("Ruth 1:1+1:2", "Ruth 1:1", "Ruth 1:1+1:2"), ("Ruth 1:3", "Ruth 1:3", "Ruth 1:3")])
        # A KJV bead reaching outside the segment leaves it without KJV.
        kjv_beads = [align.Bead(0, 1, 0, 1, 0.0), align.Bead(1, 3, 1, 3, 0.0)]
        segs = segments.build_segments(src, en, kjv, web_beads, kjv_beads, MODEL, MODEL,
                                       collections.Counter())
        self.assertEqual([s.kjv for s in segs], [None, None])

    def test_length_mismatch_is_dropped(self):
        # Like WEB Romans 14:23, which also holds the doxology of 16:25-27.
        n = lengths(20)
        src = verses("Romans", (((14, i + 1), x) for i, x in enumerate(n)))
        en = verses("Romans", (((14, i + 1), x * 4 if i == 10 else x) for i, x in enumerate(n)))
        beads = [align.Bead(i, i + 1, i, i + 1, 0.0) for i in range(20)]
        drops = collections.Counter()
        segs = segments.build_segments(src, en, en, beads, beads, MODEL, MODEL, drops)
        self.assertEqual(len(segs), 19)
        self.assertNotIn("Romans 14:11", [s.es_ref for s in segs])
        self.assertEqual(drops["length_mismatch"], 1)


if __name__ == "__main__":
    unittest.main()
