#!/usr/bin/env python3
"""Select the lines of line-parallel corpus files by the book their verse reference names.

The corpus builder (prepare_bible.py) writes NAME.ref beside NAME.es and NAME.en: per line, the
verse references ("Matthew 5:3", tab-separated per module). This keeps the lines of the books
asked for, e.g. the New Testament for a fine-tuning example (docs/training.md):

    python3 scripts/select_books.py --refs data/bible/train.ref --testament new \\
        data/bible/train.es data/nt/train.es data/bible/train.en data/nt/train.en

Outputs are written whole or not at all (a temporary file renamed into place); the inputs must
have as many lines as the reference file. Standard library only.
"""
import argparse
import os
import re
import sys
import tempfile

NEW_TESTAMENT = [
    "Matthew", "Mark", "Luke", "John", "Acts", "Romans", "I Corinthians", "II Corinthians", "Galatians",
    "Ephesians", "Philippians", "Colossians", "I Thessalonians", "II Thessalonians", "I Timothy", "II Timothy",
    "Titus", "Philemon", "Hebrews", "James", "I Peter", "II Peter", "I John", "II John", "III John", "Jude",
    "Revelation of John",
]
REFERENCE = re.compile(r"^(.+?) \d+:\d+")


def book_of(ref_line):
    """The book of a reference line's first reference ("I Samuel 10:25+10:26\\t..." -> "I Samuel")."""
    match = REFERENCE.match(ref_line.split("\t", 1)[0])
    if not match:
        raise ValueError("not a verse reference: %r" % ref_line.rstrip("\n"))
    return match.group(1)


def wanted_lines(refs_path, books=None, testament=None):
    """Indices of the lines of refs_path whose book is in `books`, or in `testament` (old/new)."""
    with open(refs_path, encoding="utf-8") as refs:
        lines = refs.readlines()
    keep = []
    for i, line in enumerate(lines):
        try:
            book = book_of(line)
        except ValueError as e:
            raise ValueError("%s:%d: %s" % (refs_path, i + 1, e))
        if books is not None:
            ok = book in books
        else:
            ok = (book in NEW_TESTAMENT) == (testament == "new")
        if ok:
            keep.append(i)
    return len(lines), keep


def write_selected(source, target, total, keep):
    with open(source, encoding="utf-8") as f:
        lines = f.readlines()
    if len(lines) != total:
        raise ValueError("%s has %d lines, its reference file %d" % (source, len(lines), total))
    directory = os.path.dirname(os.path.abspath(target))
    os.makedirs(directory, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=".select-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.writelines(lines[i] for i in keep)
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--refs", required=True, help="the reference file (NAME.ref) line-parallel to the inputs")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--testament", choices=["old", "new"])
    group.add_argument("--books", help="comma-separated book names as the reference file spells them")
    parser.add_argument("files", nargs="+", help="pairs INPUT OUTPUT")
    args = parser.parse_args(argv)
    if len(args.files) % 2 != 0:
        parser.error("files come in pairs INPUT OUTPUT")
    books = None if args.books is None else set(b.strip() for b in args.books.split(","))
    try:
        total, keep = wanted_lines(args.refs, books, args.testament)
        if books is not None:
            with open(args.refs, encoding="utf-8") as refs:
                present = set(book_of(line) for line in refs)
            unknown = sorted(books - present)
            if unknown:
                raise ValueError("%s names no verse of %s" % (", ".join(unknown), args.refs))
        pairs = list(zip(args.files[0::2], args.files[1::2]))
        # Nothing a run reads may be written, and no output twice: checked before anything is.
        reads = [os.path.realpath(p) for p in [args.refs] + [source for source, _ in pairs]]
        outputs = [os.path.realpath(target) for _, target in pairs]
        for target, real in zip([t for _, t in pairs], outputs):
            if real in reads:
                raise ValueError("%s: the output would replace an input" % target)
        if len(set(outputs)) != len(outputs):
            raise ValueError("two outputs are one file")
        for source, target in pairs:
            write_selected(source, target, total, keep)
    except (OSError, ValueError) as e:
        print("select_books.py: error: %s" % e, file=sys.stderr)
        return 1
    print("kept %d of %d lines" % (len(keep), total), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
