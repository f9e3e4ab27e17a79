"""scripts/prepare_bible.py as a command: errors, and a run on the real modules.

The real-module tests read Ruth and Jonah through diatheke (about 2 s) and are
skipped when diatheke or one of the three SWORD modules is not installed.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
COMMAND = os.path.join(ROOT, "scripts", "prepare_bible.py")
sys.path.insert(0, os.path.join(ROOT, "scripts"))

from bible import sword  # noqa: E402


def run_command(*args):
    return subprocess.run([sys.executable, COMMAND, *args], capture_output=True, text=True,
                          timeout=300)


def modules_missing():
    """Why the real-module tests cannot run, or None."""
    exe = shutil.which("diatheke")
    if exe is None:
        return "diatheke is not installed"
    try:
        have = sword.installed_modules(exe)
    except Exception as exc:  # noqa: BLE001 - any failure means: skip
        return f"diatheke does not work: {exc}"
    missing = [e.module for e in sword.EDITIONS if e.module not in have]
    return f"SWORD modules missing: {', '.join(missing)}" if missing else None


class ErrorTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.out = os.path.join(self.tmp, "out")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def assertOneLineError(self, done, *fragments):
        self.assertEqual(done.returncode, 1, done.stderr)
        self.assertEqual(done.stdout, "")
        self.assertNotIn("Traceback", done.stderr)
        lines = done.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, done.stderr)
        for fragment in fragments:
            self.assertIn(fragment, lines[0])

    def test_missing_diatheke(self):
        done = run_command("--out", self.out, "--diatheke", os.path.join(self.tmp, "no-diatheke"))
        self.assertOneLineError(done, "diatheke not found", "install the Debian package diatheke")
        self.assertFalse(os.path.exists(self.out))

    def test_missing_module(self):
        fake = os.path.join(self.tmp, "diatheke")
        with open(fake, "w", encoding="utf-8") as f:
            f.write(textwrap.dedent(f"""\
                #!{sys.executable}
                import sys
                if sys.argv[1:] == ["-b", "system", "-k", "modulelist"]:
                    print("Biblical Texts:")
                    print("engWEB2015eb : World English Bible with Deuterocanon")
                    print("spaRV1909eb : Reina Valera 1909")
                    sys.exit(0)
                sys.exit(2)
                """))
        os.chmod(fake, 0o755)
        os.mkdir(self.out)
        with open(os.path.join(self.out, "keep"), "w", encoding="utf-8") as f:
            f.write("old output\n")
        done = run_command("--out", self.out, "--diatheke", fake)
        self.assertOneLineError(done, "engKJV2006eb", "sword-text-kjv")
        self.assertEqual(os.listdir(self.out), ["keep"])  # left untouched

    def test_unknown_test_book(self):
        done = run_command("--out", self.out, "--test-books", "Ruth", "Tobit")
        self.assertOneLineError(done, "unknown book name 'Tobit'")

    def test_non_positive_dev_size(self):
        done = run_command("--out", self.out, "--dev-size", "0")
        self.assertOneLineError(done, "--dev-size must be positive")


FILES = ("train.es", "train.en", "train.ref", "dev.es", "dev.en", "dev.kjv.en", "dev.ref",
         "test.es", "test.en", "test.kjv.en", "test.ref")


@unittest.skipIf(modules_missing(), modules_missing() or "")
class RealModulesTest(unittest.TestCase):
    """Ruth and Jonah from the installed modules; Jonah is the test book."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.out = os.path.join(cls.tmp, "bible")
        cls.done = run_command("--out", cls.out, "--books", "Ruth", "Jonah",
                               "--test-books", "Jonah", "--dev-size", "20")
        cls.lines = {}
        if cls.done.returncode == 0:
            for name in FILES + ("train.kjv.en",):
                with open(os.path.join(cls.out, name), encoding="utf-8") as f:
                    cls.lines[name] = f.read().split("\n")[:-1]
            with open(os.path.join(cls.out, "stats.json"), encoding="utf-8") as f:
                cls.stats = json.load(f)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def setUp(self):
        self.assertEqual(self.done.returncode, 0, self.done.stderr)

    def pair(self, split, es_ref):
        refs = [line.split("\t") for line in self.lines[f"{split}.ref"]]
        index = [r[0] for r in refs].index(es_ref)
        texts = [self.lines[f"{split}.{kind}"][index] for kind in ("es", "en")]
        if split != "train":
            texts.append(self.lines[f"{split}.kjv.en"][index])
        return refs[index], texts

    def test_files_are_line_parallel(self):
        for split in ("train", "dev", "test"):
            names = [n for n in FILES if n.startswith(split + ".")]
            counts = {len(self.lines[n]) for n in names}
            self.assertEqual(len(counts), 1, names)
            for name in names:
                self.assertTrue(all(line.strip() == line and line for line in self.lines[name]))

    def test_train_kjv_is_line_parallel_and_holds_no_test_book(self):
        kjv = self.lines["train.kjv.en"]
        self.assertEqual(len(kjv), len(self.lines["train.es"]))
        self.assertTrue(all(line.strip() == line for line in kjv))
        # Empty exactly where a training segment has no KJV match.
        self.assertEqual(sum(1 for line in kjv if not line), self.stats["train_pairs_without_kjv"])
        # KJV's words, not WEB's: most lines differ, and KJV's "unto" is far more frequent.
        web = self.lines["train.en"]
        self.assertGreater(sum(1 for k, w in zip(kjv, web) if k and k != w), len(kjv) // 2)
        self.assertGreater(sum("unto" in k for k in kjv), 5 + 2 * sum("unto" in w for w in web))
        # Jonah is the test book: no training line, KJV or other, comes from it.
        self.assertTrue(all(r.startswith("Ruth ") for r in self.lines["train.ref"]))
        test_kjv = set(self.lines["test.kjv.en"])
        self.assertFalse(test_kjv & set(kjv))

    def test_counts(self):
        pairs = self.stats["pairs"]
        # Ruth: 85 verses, all 1-1.  Jonah: 48 verses, RV 1:17 is an empty
        # placeholder and RV 2:10 holds WEB 2:9-10: 47 pairs, one merged.
        self.assertEqual(pairs["train"] + pairs["dev"], 85)
        self.assertEqual(pairs["dev"], 20)
        self.assertEqual(pairs["test"], 47)
        self.assertEqual(self.stats["drops"].get("empty_es"), 1)
        self.assertEqual(self.stats["per_book"]["Jonah"]["merged_pairs"], 1)
        self.assertEqual(self.stats["alignment_moves"]["en"], {"1-1": 131, "1-2": 1})
        self.assertIn("train 65, dev 20, test 47 pairs", self.done.stdout)

    def test_jonah_chapter_shift(self):
        # RV1909 numbers the fish verse 2:1 (Hebrew numbering); WEB and KJV 1:17.
        refs, (es, en, kjv) = self.pair("test", "Jonah 2:1")
        self.assertEqual(refs, ["Jonah 2:1", "Jonah 1:17", "Jonah 1:17"])
        self.assertIn("pez", es)
        self.assertIn("fish", en)
        self.assertIn("three days", en)
        self.assertIn("fish", kjv)
        refs, (es, en, kjv) = self.pair("test", "Jonah 2:2")
        self.assertEqual(refs[1], "Jonah 2:1")
        self.assertIn("oró", es)
        self.assertIn("prayed", en)

    def test_jonah_merge(self):
        refs, (es, en, kjv) = self.pair("test", "Jonah 2:10")
        self.assertEqual(refs, ["Jonah 2:10", "Jonah 2:9+2:10", "Jonah 2:9+2:10"])
        self.assertIn("vomitó", es)
        self.assertIn("Salvation", en)
        self.assertIn("vomited", en)

    def test_ruth_is_reference_aligned_and_clean(self):
        refs = [line.split("\t") for line in self.lines["train.ref"] + self.lines["dev.ref"]]
        self.assertTrue(all(r[0] == r[1] for r in refs))
        self.assertTrue(all(r[0].startswith("Ruth ") for r in refs))
        text = "\n".join(self.lines["train.es"] + self.lines["train.en"])
        for artefact in ("<", ">", "¶", "  ", " ,", " .", "¿ ", "( "):
            self.assertNotIn(artefact, text)

    def test_deterministic(self):
        again = os.path.join(self.tmp, "again")
        done = run_command("--out", again, "--books", "Ruth", "Jonah",
                           "--test-books", "Jonah", "--dev-size", "20")
        self.assertEqual(done.returncode, 0, done.stderr)
        for name in FILES:
            with open(os.path.join(again, name), encoding="utf-8") as f:
                self.assertEqual(f.read().split("\n")[:-1], self.lines[name], name)


if __name__ == "__main__":
    unittest.main()
