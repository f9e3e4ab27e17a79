#!/usr/bin/env python3
"""Every reference to the docs must lead somewhere: run by ctest (doc_references).

Checks, in the sources (nmt/, apps/, tests/, bench/, scripts/, examples/, cmake/, configs/,
CMakeLists.txt) and in the Markdown (README.md, docs/*.md):
  - every `docs/NAME.md` named exists;
  - every section cited after one -- `docs/NAME.md, "Section"` in code, `[text](NAME.md), "Section"`
    in Markdown -- is a heading of that file (#, ##, ...; the heading may go on after the cited
    words, e.g. "Threads" for "## Threads and cores");
  - every relative link of the Markdown files ([text](path), [text](path#anchor)) names a file
    that exists, and an anchor that is one of its headings' GitHub anchors;
  - every file of the repository named by its path (nmt/..., tests/..., scripts/..., with an
    extension) exists, except in docs/benchmarks.md, a dated record whose paths may be history.
Prints one line per broken reference (FILE:LINE: what) and exits 1 if there is any.

Usage: scripts/check_doc_references.py [REPOSITORY_ROOT]
"""
import os
import re
import sys

SOURCE_DIRS = ["nmt", "apps", "tests", "bench", "scripts", "examples", "cmake", "configs"]
SOURCE_FILES = ["CMakeLists.txt"]
SOURCE_SUFFIXES = (".cc", ".h", ".py", ".sh", ".txt", ".cmake", ".toml", ".md")
# This script and its test name broken references on purpose; the code-size test names the files of
# the small trees it makes.
SKIPPED = {"scripts/check_doc_references.py", "tests/scripts/test_check_doc_references.py",
           "tests/scripts/test_check_code_size.py"}

# docs/NAME.md, optionally followed by a cited section: , "Section"
CODE_REFERENCE = re.compile(r'docs/([A-Za-z0-9_-]+\.md)(?:,\s*"([^"]+)")?')
# [text](target) with an optional cited section after it: , "Section"
MARKDOWN_LINK = re.compile(r'\[[^\]]*\]\(([^)\s]+)\)(?:,\s*"([^"]+)")?')
HEADING = re.compile(r"^#+\s+(.*?)\s*#*\s*$")
# A repository file named by its path: a top directory, then names, then an extension.
REPOSITORY_PATH = re.compile(
    r"(?<![\w./-])((?:nmt|apps|tests|scripts|bench|examples|cmake|configs)/[\w./-]*?\.(?:cc|h|py|sh|toml|cmake|md))(?![\w-])")
HISTORY = {"docs/benchmarks.md"}


def headings(path):
    """The headings of a Markdown file, outside fenced code blocks."""
    found, fenced = [], False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                fenced = not fenced
                continue
            match = HEADING.match(line) if not fenced else None
            if match:
                found.append(match.group(1))
    return found


def anchor(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def cites(heading_list, section):
    return any(h == section or h.startswith(section + " ") or h.startswith(section + ":")
               or h.startswith(section + ",") or h.startswith(section + " (") for h in heading_list)


def source_files(root):
    for name in SOURCE_FILES:
        yield os.path.join(root, name)
    for directory in SOURCE_DIRS:
        for base, dirs, files in os.walk(os.path.join(root, directory)):
            dirs[:] = [d for d in dirs if d not in ("corpus", "findings", "regressions", "__pycache__")]
            for name in sorted(files):
                if name.endswith(SOURCE_SUFFIXES):
                    yield os.path.join(base, name)


def check_doc(root, where, doc, section, problems, cache):
    path = os.path.join(root, "docs", doc)
    if not os.path.isfile(path):
        problems.append(f"{where}: docs/{doc} does not exist")
        return
    if section:
        titles = cache.setdefault(path, headings(path))
        if not cites(titles, section):
            problems.append(f'{where}: docs/{doc} has no section "{section}"')


def check_paths(root, where, line, problems):
    for match in REPOSITORY_PATH.finditer(line):
        path = match.group(1)
        if "*" in path or "<" in path or "NAME" in path or "..." in path or path.startswith("cmake/nmt/"):
            continue  # patterns, and the installed tree's cmake/nmt/ (not this repository's)
        if not os.path.exists(os.path.join(root, path)):
            problems.append(f"{where}: {path} does not exist")


def check_sources(root, problems, cache):
    for path in source_files(root):
        if os.path.relpath(path, root) in SKIPPED:
            continue
        try:
            with open(path, encoding="utf-8") as f:
                lines = f.readlines()
        except (UnicodeDecodeError, OSError):
            continue
        relative = os.path.relpath(path, root)
        for number, line in enumerate(lines, 1):
            for match in CODE_REFERENCE.finditer(line):
                check_doc(root, f"{relative}:{number}", match.group(1), match.group(2), problems, cache)
            check_paths(root, f"{relative}:{number}", line, problems)


def check_markdown(root, problems, cache):
    documents = [os.path.join(root, "README.md")]
    documents += sorted(os.path.join(root, "docs", n) for n in os.listdir(os.path.join(root, "docs"))
                        if n.endswith(".md"))
    for path in documents:
        relative = os.path.relpath(path, root)
        fenced = False
        with open(path, encoding="utf-8") as f:
            lines = f.readlines()
        for number, line in enumerate(lines, 1):
            if line.startswith("```"):
                fenced = not fenced
                continue
            where = f"{relative}:{number}"
            for match in CODE_REFERENCE.finditer(line):
                check_doc(root, where, match.group(1), match.group(2), problems, cache)
            if relative not in HISTORY:
                check_paths(root, where, line, problems)
            if fenced:
                continue
            for match in MARKDOWN_LINK.finditer(line):
                target, section = match.group(1), match.group(2)
                if re.match(r"^[a-z]+:", target):
                    continue  # https:, mailto:
                file_part, _, fragment = target.partition("#")
                linked = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                if not os.path.exists(linked):
                    problems.append(f"{where}: link to {target}: {os.path.relpath(linked, root)} does not exist")
                    continue
                if linked.endswith(".md") and (fragment or section):
                    titles = cache.setdefault(linked, headings(linked))
                    if fragment and fragment not in {anchor(t) for t in titles}:
                        problems.append(f"{where}: link to {target}: no heading with anchor #{fragment}")
                    if section and not cites(titles, section):
                        problems.append(f'{where}: {os.path.relpath(linked, root)} has no section "{section}"')


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    problems, cache = [], {}
    check_sources(root, problems, cache)
    check_markdown(root, problems, cache)
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} broken reference(s) to the docs", file=sys.stderr)
        return 1
    print("every reference to the docs leads somewhere")
    return 0


if __name__ == "__main__":
    sys.exit(main())
