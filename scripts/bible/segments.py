"""Turn the alignments of one book into line pairs, counting what is dropped.

A segment is one output line: one or more consecutive Spanish verses, the
WEB verses aligned to them and, where it aligns cleanly, the KJV text for
the same Spanish verses.
"""

from __future__ import annotations

import bisect
import collections
import dataclasses
from dataclasses import dataclass

from . import align
from .editions import Verse

# A pair whose length difference has probability below e^-7 (~1e-3) under
# the length model is not used.  On these Bibles that drops the pairs whose
# content differs: WEB Romans 14:23 carries the doxology (RV 16:25-27), and
# RV Matthew 27:35 and 1 John 5:7 have Textus Receptus text the WEB lacks.
MAX_MATCH_COST = 7.0


@dataclass
class Segment:
    book: str
    position: int          # index of the first Spanish verse in its book
    es: str
    en: str
    kjv: str | None
    es_ref: str
    en_ref: str
    kjv_ref: str | None


def format_ref(verses: list[Verse]) -> str:
    """'Jonah 1:17', or 'Numbers 12:16+13:1' for merged verses."""
    if not verses:
        return "-"
    return verses[0].book + " " + "+".join(f"{v.chapter}:{v.verse}" for v in verses)


def anchors_by_reference(src: list[Verse], tgt: list[Verse]) -> list[int]:
    """For each source position, how many target verses precede its reference.

    This is where the source verse would meet the target if both numbered
    their verses alike: the centre of the alignment band.
    """
    keys = [(v.chapter, v.verse) for v in tgt]
    return [bisect.bisect_left(keys, (v.chapter, v.verse)) for v in src] + [len(tgt)]


def same_reference_lengths(src: list[Verse], tgt: list[Verse]) -> list[tuple[int, int]]:
    """(source, target) lengths of verses with the same reference."""
    by_ref = {(v.chapter, v.verse): len(v.text) for v in tgt}
    return [(len(v.text), by_ref[(v.chapter, v.verse)])
            for v in src if (v.chapter, v.verse) in by_ref]


def book_model(src: list[Verse], tgt: list[Verse], model: align.LengthModel) -> align.LengthModel:
    """``model`` with the length ratio refitted to one book (books differ)."""
    pairs = same_reference_lengths(src, tgt)
    if not pairs:
        return model
    ratio = sum(b for _, b in pairs) / sum(a for a, _ in pairs)
    return dataclasses.replace(model, ratio=ratio)


def align_book(src: list[Verse], tgt: list[Verse], model: align.LengthModel,
               tgt_empty=frozenset()) -> list[align.Bead]:
    """Align the (non-empty) verses of one book.

    ``tgt_empty`` holds the (chapter, verse) references the target leaves
    empty; source verses with those references are expected to be dropped.
    """
    return align.align([len(v.text) for v in src], [len(v.text) for v in tgt],
                       book_model(src, tgt, model), anchors_by_reference(src, tgt),
                       expect_unmatched=[(v.chapter, v.verse) in tgt_empty for v in src])


def move_name(bead: align.Bead) -> str:
    return "%d-%d" % bead.move


def _match_cost(bead: align.Bead, src, tgt, model: align.LengthModel) -> float:
    return align.match_cost(sum(len(v.text) for v in src[bead.src_start:bead.src_end]),
                            sum(len(v.text) for v in tgt[bead.tgt_start:bead.tgt_end]), model)


def build_segments(src: list[Verse], web: list[Verse], kjv: list[Verse],
                   web_beads: list[align.Bead], kjv_beads: list[align.Bead],
                   web_model: align.LengthModel, kjv_model: align.LengthModel,
                   drops: collections.Counter) -> list[Segment]:
    """Segments of one book from its RV-WEB and RV-KJV alignments.

    ``drops`` is incremented per reason: ``unaligned_es`` (a Spanish verse
    with no WEB partner), ``unaligned_en`` (a WEB verse with no Spanish
    partner), ``length_mismatch`` (pairs over MAX_MATCH_COST, counted in
    Spanish verses).  The KJV text is None unless every KJV bead touching
    these Spanish verses lies inside them, has KJV text and passes
    MAX_MATCH_COST, i.e. the KJV covers exactly the same Spanish verses.
    """
    web_model, kjv_model = book_model(src, web, web_model), book_model(src, kjv, kjv_model)
    kjv_ok = [b.move[0] > 0 and b.move[1] > 0
              and _match_cost(b, src, kjv, kjv_model) <= MAX_MATCH_COST for b in kjv_beads]
    owner = [0] * len(src)
    for index, bead in enumerate(kjv_beads):
        for i in range(bead.src_start, bead.src_end):
            owner[i] = index
    segments = []
    for bead in web_beads:
        es_verses = src[bead.src_start:bead.src_end]
        en_verses = web[bead.tgt_start:bead.tgt_end]
        if not en_verses:
            drops["unaligned_es"] += len(es_verses)
            continue
        if not es_verses:
            drops["unaligned_en"] += len(en_verses)
            continue
        if _match_cost(bead, src, web, web_model) > MAX_MATCH_COST:
            drops["length_mismatch"] += len(es_verses)
            continue
        first, last = owner[bead.src_start], owner[bead.src_end - 1]
        kjv_verses = None
        if all(kjv_ok[k] and kjv_beads[k].src_start >= bead.src_start
               and kjv_beads[k].src_end <= bead.src_end for k in range(first, last + 1)):
            kjv_verses = kjv[kjv_beads[first].tgt_start:kjv_beads[last].tgt_end]
        segments.append(Segment(
            book=es_verses[0].book, position=bead.src_start,
            es=" ".join(v.text for v in es_verses), en=" ".join(v.text for v in en_verses),
            kjv=" ".join(v.text for v in kjv_verses) if kjv_verses else None,
            es_ref=format_ref(es_verses), en_ref=format_ref(en_verses),
            kjv_ref=format_ref(kjv_verses) if kjv_verses else None))
    return segments
