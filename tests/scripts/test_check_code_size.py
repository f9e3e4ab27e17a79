"""scripts/check_code_size.py on small trees made here: a file over the limit, a function over it,
and code within both."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
import check_code_size  # noqa: E402


def function(name, body_lines):
    return f"int {name}(int x) {{\n" + "  x += 1;\n" * body_lines + "  return x;\n}\n"


class CheckCodeSizeTest(unittest.TestCase):
    def tree(self, files):
        root = tempfile.mkdtemp()
        for path, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                f.write(text)
        return root

    def test_within_the_limits_passes(self):
        root = self.tree({"nmt/a.cc": "namespace nmt {\n\n" + function("f", 77) + "\n}  // namespace nmt\n",
                          "apps/b.h": "#pragma once\nstruct S {\n  int x;\n};\n"})
        self.assertEqual(check_code_size.check(root), [])

    def test_a_long_function_is_named_with_its_line(self):
        root = self.tree({"nmt/a.cc": "#include <x>\n\n" + function("short_one", 3) + "\n" +
                          "static int\nlong_one(int x,\n         int y) {\n" + "  x += y;\n" * 80 + "  return x;\n}\n"})
        problems = check_code_size.check(root)
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("nmt/a.cc:10: a function of 85 lines", problems[0])
        self.assertIn("long_one(int x,", problems[0])

    def test_a_long_file_and_the_limits_as_options(self):
        root = self.tree({"apps/c.cc": "// x\n" * 501, "tests/t.cc": "// tests may be longer\n" * 900})
        self.assertEqual(check_code_size.check(root), ["apps/c.cc:1: 501 lines, more than 500: split it by purpose"])
        self.assertEqual(check_code_size.check(root, max_file_lines=600), [])
        self.assertEqual(check_code_size.main([root, "--max-file-lines", "600"]), 0)

    def test_classes_and_namespaces_are_not_functions(self):
        body = "  int a;\n" * 90
        root = self.tree({"nmt/d.h": "namespace nmt {\nclass Big {\n" + body + "};\n}  // namespace nmt\n"})
        self.assertEqual(check_code_size.check(root), [])


if __name__ == "__main__":
    unittest.main()
