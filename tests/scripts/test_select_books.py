"""scripts/select_books.py: lines by book, testaments, refusals, whole outputs."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
import select_books  # noqa: E402


class SelectBooksTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = lambda name: os.path.join(self.dir.name, name)
        refs = ["Genesis 1:1\tGenesis 1:1", "I Samuel 10:25+10:26\tI Samuel 10:25", "Matthew 1:1\tMatthew 1:1",
                "Revelation of John 22:21\tRevelation of John 22:21", "Malachi 4:6\tMalachi 4:6"]
        for name, lines in (("x.ref", refs), ("x.es", ["g", "s", "m", "r", "ma"]), ("x.en", ["G", "S", "M", "R", "MA"])):
            with open(self.path(name), "w", encoding="utf-8") as f:
                f.write("".join(line + "\n" for line in lines))

    def tearDown(self):
        self.dir.cleanup()

    def read(self, name):
        with open(self.path(name), encoding="utf-8") as f:
            return f.read().splitlines()

    def test_testaments_and_books(self):
        self.assertEqual(select_books.main(["--refs", self.path("x.ref"), "--testament", "new", self.path("x.es"),
                                            self.path("nt.es"), self.path("x.en"), self.path("nt.en")]), 0)
        self.assertEqual(self.read("nt.es"), ["m", "r"])
        self.assertEqual(self.read("nt.en"), ["M", "R"])
        select_books.main(["--refs", self.path("x.ref"), "--testament", "old", self.path("x.es"), self.path("ot.es")])
        self.assertEqual(self.read("ot.es"), ["g", "s", "ma"])
        select_books.main(["--refs", self.path("x.ref"), "--books", "I Samuel, Malachi", self.path("x.es"),
                           self.path("b.es")])
        self.assertEqual(self.read("b.es"), ["s", "ma"])

    def test_refusals_leave_no_output(self):
        with open(self.path("short.es"), "w", encoding="utf-8") as f:
            f.write("one line\n")
        self.assertEqual(select_books.main(["--refs", self.path("x.ref"), "--testament", "new", self.path("short.es"),
                                            self.path("out.es")]), 1)
        self.assertFalse(os.path.exists(self.path("out.es")))
        self.assertEqual(select_books.main(["--refs", self.path("x.ref"), "--testament", "new", self.path("x.es"),
                                            self.path("x.es")]), 1)
        self.assertEqual(self.read("x.es")[0], "g", "the input is untouched")
        with open(self.path("bad.ref"), "w", encoding="utf-8") as f:
            f.write("no reference here\n")
        self.assertEqual(select_books.main(["--refs", self.path("bad.ref"), "--testament", "new", self.path("x.es"),
                                            self.path("out.es")]), 1)
        self.assertEqual([n for n in os.listdir(self.dir.name) if n.startswith(".select-")], [])
        # An output that is a later pair's input, the reference file, a link to an input, or twice.
        os.symlink(self.path("x.en"), self.path("link.en"))
        for files in (["x.es", "x.en", "x.en", "y.en"], ["x.es", "x.ref"], ["x.es", "link.en", "x.en", "z.en"],
                      ["x.es", "o.txt", "x.en", "o.txt"]):
            self.assertEqual(select_books.main(["--refs", self.path("x.ref"), "--testament", "new"] +
                                               [self.path(f) for f in files]), 1, files)
        self.assertEqual(self.read("x.en")[0], "G")
        self.assertEqual(self.read("x.ref")[0], "Genesis 1:1\tGenesis 1:1")
        self.assertFalse(os.path.exists(self.path("o.txt")))
        self.assertEqual(select_books.main(["--refs", self.path("x.ref"), "--books", "Mathew", self.path("x.es"),
                                            self.path("out.es")]), 1, "a book name that names no verse")
        self.assertFalse(os.path.exists(self.path("out.es")))


if __name__ == "__main__":
    unittest.main()
