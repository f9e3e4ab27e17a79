"""The whole preparation: read, clean, align, split, write (see docs/data.md)."""

from __future__ import annotations

import collections
import concurrent.futures
import json
import multiprocessing
import os
import time

from . import PrepareError, align
from .books import BOOK_INDEX, BOOK_NAMES, CANON_QUERY, resolve_book
from .editions import clean_edition
from .segments import align_book, build_segments, move_name, same_reference_lengths
from .split import DEFAULT_DEV_SIZE, DEFAULT_TEST_BOOKS, SPLITS, split_segments
from .sword import EDITIONS, REFERENCE, SOURCE, TARGET, check_modules, find_diatheke, \
    finish_dump, start_dump
from .writer import lines_file, write_atomically

# Keys of stats["drops"], in the order of the pipeline (see docs/data.md).
DROP_REASONS = ("empty_es", "empty_en", "empty_kjv", "unaligned_es", "unaligned_en",
                "length_mismatch", "test_without_kjv")


def _read_editions(diatheke: str, query: str):
    """Dump the three modules in parallel; clean each as soon as it is read."""
    running = {edition.module: (edition, start_dump(diatheke, edition, query))
               for edition in EDITIONS}
    texts, cleaning = {}, {}
    try:
        while running:
            done = [m for m, (_, p) in running.items() if p.poll() is not None]
            if not done:
                time.sleep(0.05)
                continue
            for module in done:
                edition, process = running.pop(module)
                counts: collections.Counter = collections.Counter()
                texts[module] = clean_edition(finish_dump(process, edition), edition, counts)
                cleaning[module] = dict(sorted(counts.items()))
    finally:
        for _, process in running.values():
            process.kill()
            process.wait()
    return texts, cleaning


def _align_all(src: dict, tgt: dict, books, model: align.LengthModel, tgt_empty: dict) -> dict:
    return {book: align_book(src[book], tgt[book], model, tgt_empty[book]) for book in books}


def _align_both(nonempty, empty, books, web_model, kjv_model):
    """RV-WEB and RV-KJV alignments of all books, in two processes if possible."""
    src, web, kjv = (nonempty[e.module] for e in (SOURCE, TARGET, REFERENCE))
    web_args = (src, web, books, web_model, empty[TARGET.module])
    kjv_args = (src, kjv, books, kjv_model, empty[REFERENCE.module])
    if (os.cpu_count() or 1) > 1 and "fork" in multiprocessing.get_all_start_methods():
        with concurrent.futures.ProcessPoolExecutor(
                1, mp_context=multiprocessing.get_context("fork")) as pool:
            kjv_future = pool.submit(_align_all, *kjv_args)
            web_beads = _align_all(*web_args)
            return web_beads, kjv_future.result()
    return _align_all(*web_args), _align_all(*kjv_args)


def _fit(texts, books, target) -> align.LengthModel:
    pairs = []
    for book in books:
        pairs += same_reference_lengths(texts[SOURCE.module][book], texts[target.module][book])
    return align.fit_length_model(pairs)


def _drop_empty(texts, books, drops):
    """Non-empty verses and empty references per edition and book (counted)."""
    nonempty, empty = {}, {}
    for edition, reason in ((SOURCE, "empty_es"), (TARGET, "empty_en"), (REFERENCE, "empty_kjv")):
        nonempty[edition.module], empty[edition.module] = {}, {}
        for book in books:
            verses = texts[edition.module][book]
            nonempty[edition.module][book] = [v for v in verses if v.text]
            empty[edition.module][book] = frozenset(
                (v.chapter, v.verse) for v in verses if not v.text)
            drops[reason] += len(empty[edition.module][book])
    return nonempty, empty


def _segments(texts, nonempty, empty, books, models, drops):
    """Align every book; return (segments, per-book statistics, move counts)."""
    web_model, kjv_model = models
    web_all, kjv_all = _align_both(nonempty, empty, books, web_model, kjv_model)
    moves = {"en": collections.Counter(), "kjv": collections.Counter()}
    segments, per_book = [], {}
    for book in books:
        src, web, kjv = (nonempty[e.module][book] for e in (SOURCE, TARGET, REFERENCE))
        moves["en"].update(move_name(b) for b in web_all[book])
        moves["kjv"].update(move_name(b) for b in kjv_all[book])
        book_drops: collections.Counter = collections.Counter()
        book_segments = build_segments(src, web, kjv, web_all[book], kjv_all[book],
                                       web_model, kjv_model, book_drops)
        for reason, count in book_drops.items():
            drops[reason] += count
        segments += book_segments
        per_book[book] = {
            "verses": {"es": len(src), "en": len(web), "kjv": len(kjv)},
            "empty_verses": {key: len(texts[e.module][book]) - len(nonempty[e.module][book])
                             for key, e in (("es", SOURCE), ("en", TARGET), ("kjv", REFERENCE))},
            "pairs": len(book_segments),
            "merged_pairs": sum(1 for b in web_all[book] if min(b.move) >= 1 and max(b.move) > 1),
            "pairs_with_kjv": sum(1 for s in book_segments if s.kjv is not None),
            # Pairs that reference-only pairing would get wrong.
            "pairs_with_other_reference": sum(1 for s in book_segments if s.es_ref != s.en_ref),
            "drops": dict(sorted(book_drops.items())),
        }
    return segments, per_book, moves


def _output_files(splits) -> dict:
    files = {}
    for name in SPLITS:
        part = splits[name]
        files[f"{name}.es"] = lines_file(s.es for s in part)
        files[f"{name}.en"] = lines_file(s.en for s in part)
        if name == "train":
            # The KJV side as a second target of the same sources (a paraphrase corpus); empty
            # where the segment has no KJV match, a pair that nmt-train drops as empty.
            files[f"{name}.kjv.en"] = lines_file(s.kjv or "" for s in part)
            files[f"{name}.ref"] = lines_file(f"{s.es_ref}\t{s.en_ref}" for s in part)
        else:
            files[f"{name}.kjv.en"] = lines_file(s.kjv for s in part)
            files[f"{name}.ref"] = lines_file(f"{s.es_ref}\t{s.en_ref}\t{s.kjv_ref}" for s in part)
    return files


def _model_stats(model: align.LengthModel) -> dict:
    return {"ratio": round(model.ratio, 4), "scale": round(model.scale, 4), "dof": model.dof,
            "expected_drop_prior": model.expected_drop_prior,
            "priors": {"%d-%d" % mv: p for mv, p in model.priors.items()},
            "max_merge": align.MAX_MERGE, "merge_decay": align.MERGE_DECAY}


def run(out_dir: str, diatheke: str | None = None, test_books=DEFAULT_TEST_BOOKS,
        dev_size: int = DEFAULT_DEV_SIZE, books=None) -> dict:
    """Build the corpus in ``out_dir``; return the statistics written.

    ``books`` restricts the run to some books (for tests); by default all 66.
    """
    started = time.monotonic()
    if dev_size < 1:
        raise PrepareError(f"--dev-size must be positive, not {dev_size}")
    test_books = sorted({resolve_book(b) for b in test_books}, key=BOOK_INDEX.get)
    if books is None:
        books, query = list(BOOK_NAMES), CANON_QUERY
    else:
        books = sorted({resolve_book(b) for b in books}, key=BOOK_INDEX.get)
        query = "; ".join(books)
    exe = find_diatheke(diatheke)
    check_modules(exe)
    texts, cleaning = _read_editions(exe, query)
    for book in books:
        for edition in EDITIONS:
            if not texts[edition.module].get(book):
                raise PrepareError(f"diatheke printed no {book} for {edition.module} "
                                   f"(reinstall the Debian package {edition.package})")
    read_done = time.monotonic()

    drops = dict.fromkeys(DROP_REASONS, 0)
    nonempty, empty = _drop_empty(texts, books, drops)
    models = (_fit(nonempty, books, TARGET), _fit(nonempty, books, REFERENCE))
    segments, per_book, moves = _segments(texts, nonempty, empty, books, models, drops)
    splits, split_drops = split_segments(segments, test_books, dev_size)
    for reason, count in split_drops.items():
        drops[reason] += count
    for name in SPLITS:
        for seg in splits[name]:
            per_book[seg.book][name] = per_book[seg.book].get(name, 0) + 1
    aligned = time.monotonic()

    files = _output_files(splits)
    stats = {
        "editions": {role: {"module": e.module, "description": e.description, "package": e.package}
                     for role, e in (("es", SOURCE), ("en", TARGET), ("kjv", REFERENCE))},
        "books": len(books),
        "test_books": test_books,
        "dev_size_requested": dev_size,
        "pairs": {name: len(splits[name]) for name in SPLITS},
        "pairs_total": sum(len(splits[name]) for name in SPLITS),
        "drops": drops,
        "train_pairs_without_kjv": sum(1 for s in splits["train"] if s.kjv is None),
        "pairs_with_other_reference": sum(b["pairs_with_other_reference"]
                                          for b in per_book.values()),
        "alignment_moves": {k: dict(sorted(v.items())) for k, v in moves.items()},
        "length_model": {"en": _model_stats(models[0]), "kjv": _model_stats(models[1])},
        "cleaning": cleaning,
        "per_book": per_book,
        "elapsed_seconds": {"read_and_clean": round(read_done - started, 2),
                            "align_and_split": round(aligned - read_done, 2),
                            "total_before_write": round(time.monotonic() - started, 2)},
    }
    files["stats.json"] = json.dumps(stats, ensure_ascii=False, indent=1) + "\n"
    write_atomically(out_dir, files)
    return stats


def summary(stats: dict, out_dir: str, seconds: float) -> str:
    """A few lines for stdout."""
    p, d = stats["pairs"], stats["drops"]
    moves = stats["alignment_moves"]["en"]
    merges = sum(n for mv, n in moves.items() if "0" not in mv.split("-") and mv != "1-1")
    return "\n".join([
        f"wrote {out_dir}: train {p['train']}, dev {p['dev']}, test {p['test']} pairs "
        f"({stats['books']} books; test: "
        f"{', '.join(b for b in stats['test_books'] if b in stats['per_book']) or 'none'})",
        "dropped: " + ", ".join(f"{k} {v}" for k, v in d.items()),
        f"RV1909-WEB alignment: {moves.get('1-1', 0)} 1-1, {merges} merges, "
        f"{moves.get('1-0', 0)} 1-0, {moves.get('0-1', 0)} 0-1",
        f"time: {seconds:.1f} s",
    ])
