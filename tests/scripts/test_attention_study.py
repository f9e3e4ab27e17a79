"""scripts/attention_study.sh's refusals and scripts/attention_study_report.py's numbers: bad options
are one line and leave no output folder; entropy and zero shares, the verse drawn and the summary
table from small files worked by hand."""
import importlib.util
import json
import math
import os
import stat
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "attention_study.sh")


def load_report():
    spec = importlib.util.spec_from_file_location("attention_study_report",
                                                  os.path.join(ROOT, "scripts", "attention_study_report.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class AttentionStudyScript(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = self.dir.name
        # A build folder of stand-in programs and a corpus of one line per file: enough for the checks.
        os.makedirs(os.path.join(self.root, "build", "apps"))
        for program in ("nmt-train", "nmt-translate", "nmt-score", "nmt-plot"):
            path = os.path.join(self.root, "build", "apps", program)
            with open(path, "w") as f:
                f.write("#!/bin/sh\nexit 1\n")
            os.chmod(path, stat.S_IRWXU)
        os.makedirs(os.path.join(self.root, "data"))
        for name in ("train.es", "train.en", "dev.es", "dev.en", "test.es", "test.en"):
            with open(os.path.join(self.root, "data", name), "w") as f:
                f.write("x\n")

    def tearDown(self):
        self.dir.cleanup()

    def run_script(self, *arguments):
        out = os.path.join(self.root, "out")
        done = subprocess.run(["bash", SCRIPT, "--out", out, "--build", os.path.join(self.root, "build"), "--data",
                               os.path.join(self.root, "data"), *arguments], capture_output=True, text=True)
        return done, out

    def test_bad_options_are_one_line_and_write_nothing(self):
        for arguments, message in [(["--steps", "0"], "--steps must be a positive integer, got '0'"),
                                   (["--steps", "ten"], "--steps must be a positive integer, got 'ten'"),
                                   (["--kinds", "general,global"], "--kinds: unknown kind 'global'"),
                                   (["--frobnicate"], "unknown option '--frobnicate'")]:
            done, out = self.run_script(*arguments)
            self.assertNotEqual(done.returncode, 0, arguments)
            self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
            self.assertIn(message, done.stderr)
            self.assertFalse(os.path.exists(out), arguments)
        os.remove(os.path.join(self.root, "data", "test.en"))
        done, out = self.run_script()
        self.assertIn("test.en is missing", done.stderr)
        self.assertFalse(os.path.exists(out))

    def test_a_failed_training_names_its_log(self):
        done, out = self.run_script("--kinds", "general", "--steps", "5")
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("general: training failed", done.stderr)
        self.assertFalse(os.path.exists(os.path.join(out, "runs", "general", ".done")))


class AttentionStudyReport(unittest.TestCase):
    def setUp(self):
        self.report = load_report()
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, text):
        path = os.path.join(self.dir.name, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def test_entropy_and_zero_share(self):
        # Rows [0.5, 0.5, 0] and [1, 0, 0, 0]: entropies ln 2 and 0, zeros 1 + 3 of 7 cells.
        path = self.write("a.jsonl", json.dumps({"source": ["a", "b", "</s>"], "target": ["x"],
                                                 "attention": [[0.5, 0.5, 0]]}) + "\n" +
                          json.dumps({"source": ["a", "b", "c", "</s>"], "target": ["y"],
                                      "attention": [[1, 0, 0, 0]]}) + "\n")
        entropy, zeros = self.report.attention_statistics(path)
        self.assertAlmostEqual(entropy, math.log(2) / 2)
        self.assertAlmostEqual(zeros, 4 / 7)

    def test_the_verse_drawn_is_the_longest_every_model_translated_and_finished(self):
        data = self.dir.name
        self.write("test.es", "uno dos\n" + " ".join(["w"] * 50) + "\nuno dos tres cuatro\nuno dos tres\n"
                   "uno dos tres cuatro cinco\n")
        line = lambda target: json.dumps({"source": ["a", "b", "</s>"], "target": target, "attention": []})
        looping = ["x"] * 5  # over 1.5 target pieces per source piece: ran on to the length limit
        a = self.write("a.jsonl", "\n".join([line(["x"]), line(["x"]), line(["x"]), line(["x"]), line(["x"])]) + "\n")
        b = self.write("b.jsonl", "\n".join([line(["x"]), line(["x"]), line([]), line(["x"]), line(looping)]) + "\n")
        # Line 2 is over 45 words, line 3 has no translation in b, line 5 loops in b: line 4.
        self.assertEqual(self.report.long_verse(data, [a, b]), 4)

    def test_summary_table(self):
        row = {"name": "local-p", "description": "general, local window at a predicted p_t", "test_bleu_beam5": 21.5,
               "test_chrf_beam5": 45.25, "test_bleu_greedy": 20.0, "dev_bleu_greedy": 30.125,
               "greedy_sentences_per_s": 410.4, "beam5_sentences_per_s": 95.0, "attention_entropy_nats": 0.75,
               "attention_zero_share": 0.5, "training_s": 500.0, "bleu_by_source_length": {"0-9": 30.0, "50+": None}}
        path = os.path.join(self.dir.name, "summary.md")
        self.report.write_summary(path, [row], 600, 12)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        self.assertIn("| local-p | 21.50 | 45.25 | 20.00 | 30.12 | 410 | 95 | 0.75 | 50.0 % | 500 |", text)
        self.assertIn("| local-p | 30.00 | - |", text)
        self.assertIn("trained 600 steps", text)
        self.assertIn("Test verse 12", text)


if __name__ == "__main__":
    unittest.main()
