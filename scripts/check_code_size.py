#!/usr/bin/env python3
"""No library file over 500 lines, no function over 80: run by ctest (code_size).

Checks the C++ of nmt/ and apps/ (tests, benchmarks and fuzzers may be longer). A function is a
definition whose signature starts at the left margin (this codebase does not indent inside
namespaces) and whose body ends at the next '}' at the left margin, counted from the signature's
first line; lambdas and classes count as part of
the function or file they are in. Prints one line per excess (FILE:LINE: what) and
exits 1 if there is any.

Usage: scripts/check_code_size.py [REPOSITORY_ROOT] [--max-file-lines N] [--max-function-lines N]
"""
import os
import re
import sys

DIRS = ["nmt", "apps"]
SUFFIXES = (".cc", ".h")
NOT_A_FUNCTION = re.compile(r"^(namespace|struct|class|enum|union|extern|typedef|template\s*<[^>]*>\s*(struct|class))\b")


def at_margin(line):
    return line[:1] not in ("", " ", "\t", "#", "/", "}", "*")


def long_functions(lines, limit):
    """(first line number, length, signature) of each function longer than `limit` lines, counted
    from the first line of its signature to its closing brace."""
    found = []
    i = 0
    while i < len(lines):
        if not at_margin(lines[i]) or NOT_A_FUNCTION.match(lines[i]):
            i += 1
            continue
        # The signature runs from this line to the first line that ends with '{' or holds a ';'.
        open_line = i
        while open_line < len(lines) and not lines[open_line].rstrip().endswith("{") and ";" not in lines[open_line]:
            open_line += 1
        if open_line == len(lines) or ";" in lines[open_line] or "(" not in "".join(lines[i:open_line + 1]):
            i = open_line + 1
            continue
        end = open_line + 1
        while end < len(lines) and not lines[end].startswith("}"):
            end += 1
        if end - i + 1 > limit:
            found.append((i + 1, end - i + 1, " ".join(line.strip() for line in lines[i:open_line + 1])))
        i = end + 1
    return found


def check(root, max_file_lines=500, max_function_lines=80):
    problems = []
    for top in DIRS:
        for folder, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if not name.endswith(SUFFIXES):
                    continue
                path = os.path.join(folder, name)
                relative = os.path.relpath(path, root)
                with open(path, encoding="utf-8") as f:
                    lines = f.read().split("\n")
                count = len(lines) - (1 if lines and lines[-1] == "" else 0)
                if count > max_file_lines:
                    problems.append(f"{relative}:1: {count} lines, more than {max_file_lines}: split it by purpose")
                for line, length, signature in long_functions(lines, max_function_lines):
                    problems.append(f"{relative}:{line}: a function of {length} lines, more than "
                                    f"{max_function_lines}: {signature[:80]}")
    return problems


def main(argv):
    root, limits = ".", {"max_file_lines": 500, "max_function_lines": 80}
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg in ("--max-file-lines", "--max-function-lines"):
            limits[arg[2:].replace("-", "_")] = int(args.pop(0))
        else:
            root = arg
    problems = check(root, **limits)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
