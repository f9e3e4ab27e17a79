#!/usr/bin/env python3
"""Build the Spanish->English Bible corpus (RV1909 -> WEB, KJV as 2nd reference).

Reads the Debian SWORD modules through diatheke, aligns the verses and writes
train/dev/test files into --out.  See docs/data.md.

Example:  python3 scripts/prepare_bible.py --out data/bible
"""

import argparse
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bible import PrepareError, pipeline  # noqa: E402
from bible.split import DEFAULT_DEV_SIZE, DEFAULT_TEST_BOOKS  # noqa: E402

PROG = "prepare_bible"


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        """Bad usage: one line on stderr and status 1, like every other error."""
        self.exit(1, f"{PROG}: error: {message} (see --help)\n")


def parse_args(argv):
    parser = _Parser(prog=PROG, description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="output directory (replaced only when the run succeeds)")
    parser.add_argument("--diatheke", metavar="PATH",
                        help="diatheke executable (default: the one on PATH)")
    parser.add_argument("--test-books", nargs="+", metavar="BOOK", default=list(DEFAULT_TEST_BOOKS),
                        help="books held out for test, e.g. Ruth '1 Samuel' 1Sam "
                             f"(default: {' '.join(DEFAULT_TEST_BOOKS)})")
    parser.add_argument("--dev-size", type=int, default=DEFAULT_DEV_SIZE, metavar="N",
                        help="dev lines drawn from the other books (default: %(default)s)")
    parser.add_argument("--books", nargs="+", metavar="BOOK",
                        help="only these books (for quick checks; default: all 66)")
    return parser.parse_args(argv)


def _terminate(signum, frame):
    raise KeyboardInterrupt  # so that temporary files and children are cleaned up


def main(argv=None) -> int:
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, _terminate)
    started = time.monotonic()
    try:
        stats = pipeline.run(args.out, diatheke=args.diatheke, test_books=args.test_books,
                             dev_size=args.dev_size, books=args.books)
    except PrepareError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted; {args.out} left unchanged", file=sys.stderr)
        return 130
    print(pipeline.summary(stats, args.out, time.monotonic() - started))
    return 0


if __name__ == "__main__":
    sys.exit(main())
