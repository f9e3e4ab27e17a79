"""scripts/check_doc_references.py finds what it promises to find, on a scratch tree, and the real
tree is clean (the doc_references ctest entry runs the script itself)."""

import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "check_doc_references.py")


def write(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as f:
        f.write(text)


class CheckDocReferences(unittest.TestCase):
    def run_on(self, files):
        with tempfile.TemporaryDirectory() as root:
            write(root, "README.md", "# nmt\n")
            for path, text in files.items():
                write(root, path, text)
            done = subprocess.run([sys.executable, SCRIPT, root], capture_output=True, text=True)
            return done.returncode, done.stdout

    def test_a_clean_tree_passes(self):
        status, out = self.run_on({
            "docs/model.md": "# Model\n## Decoder and readout\n```\n# not a heading\n```\n",
            "docs/search.md": "# Search\nSee [model](model.md#decoder-and-readout), \"Decoder\".\n",
            "nmt/a.h": '// (docs/model.md, "Decoder"), docs/search.md, nmt/a.h\n',
            "docs/benchmarks.md": "# Benchmarks\nthen in `nmt/model/old.cc`, history\n",
        })
        self.assertEqual(status, 0, out)

    def test_each_kind_of_broken_reference_is_named_with_its_line(self):
        status, out = self.run_on({
            "docs/model.md": "# Model\n## Decoder\n```\n## Fenced\n```\n",
            "docs/search.md": "# Search\n\nSee [gone](gone.md) and [m](model.md#encoder), \"Outputs\".\n",
            "nmt/a.h": '// docs/translation.md\n// (docs/model.md, "Fenced")\n',
            "apps/b.cc": '// (docs/model.md, "Attention"), tests/search/gone_test.cc\n',
        })
        self.assertEqual(status, 1)
        for expected in ["nmt/a.h:1: docs/translation.md does not exist",
                         'nmt/a.h:2: docs/model.md has no section "Fenced"',
                         'apps/b.cc:1: docs/model.md has no section "Attention"',
                         "apps/b.cc:1: tests/search/gone_test.cc does not exist",
                         "docs/search.md:3: link to gone.md: docs/gone.md does not exist",
                         "docs/search.md:3: link to model.md#encoder: no heading with anchor #encoder",
                         'docs/search.md:3: docs/model.md has no section "Outputs"']:
            self.assertIn(expected, out)

    def test_the_repository_is_clean(self):
        done = subprocess.run([sys.executable, SCRIPT, ROOT], capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stdout)


if __name__ == "__main__":
    unittest.main()
