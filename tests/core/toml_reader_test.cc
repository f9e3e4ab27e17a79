#include "nmt/core/toml_reader.h"

#include <gtest/gtest.h>

#include "nmt/core/error.h"
#include "nmt/core/toml_writer.h"
#include "tests/test_util.h"

namespace nmt {
namespace {

using Kind = TomlEntry::Kind;

TEST(TomlReader, ReadsSectionsValuesAndComments) {
  const auto entries = parse_toml_config(
      "# a comment\n"
      "run-dir = \"runs/x\"  # trailing comment\n"
      "threads = 2\r\n"
      "\n"
      "[optim]\n"
      "lr = 3e-4\n"
      "beta1 = 0.9\n"
      "eps = -1_000\n"
      "[model]   # a section\n"
      "share-embeddings = true\n"
      "'quoted.key' = 'C:\\path\\no\\escapes'\n"
      "name = \"tab\\there \\\"q\\\" \\u00e9\\U0001F600\"\n",
      "c.toml");
  ASSERT_EQ(entries.size(), 8u);
  EXPECT_EQ(entries[0].key, "run-dir");
  EXPECT_EQ(entries[0].value, "runs/x");
  EXPECT_EQ(entries[0].kind, Kind::string);
  EXPECT_EQ(entries[1].value, "2");
  EXPECT_EQ(entries[1].kind, Kind::integer);
  EXPECT_EQ(entries[2].key, "optim.lr");
  EXPECT_EQ(entries[2].kind, Kind::floating);
  EXPECT_EQ(entries[2].line, 6);
  EXPECT_EQ(entries[3].kind, Kind::floating);
  EXPECT_EQ(entries[4].kind, Kind::integer);
  EXPECT_EQ(entries[5].key, "model.share-embeddings");
  EXPECT_EQ(entries[5].kind, Kind::boolean);
  EXPECT_EQ(entries[6].key, "model.quoted.key");
  EXPECT_EQ(entries[6].value, "C:\\path\\no\\escapes");
  EXPECT_EQ(entries[7].value, "tab\there \"q\" \xC3\xA9\xF0\x9F\x98\x80");
}

TEST(TomlReader, NumbersFollowTomlGrammar) {
  const auto kind_of = [](const std::string& value) { return parse_toml_config("k = " + value, "n").at(0).kind; };
  for (const char* integer : {"0", "7", "-3", "+12", "1_000"}) EXPECT_EQ(kind_of(integer), Kind::integer) << integer;
  for (const char* number : {"0.5", "-1.5e3", "1e-4", "2E+2", "inf", "-nan", "1_0.0_1"}) {
    EXPECT_EQ(kind_of(number), Kind::floating) << number;
  }
  for (const char* bad : {"007", "1__0", "_1", "1.", ".5", "1e", "0x1F", "1,5", "fast", "True"}) {
    EXPECT_THROW_WITH(parse_toml_config(std::string("k = ") + bad, "n"), ConfigError, "n:1:", "is not a TOML value");
  }
}

TEST(TomlReader, RefusesWhatIsNotOneValuePerKey) {
  const auto refuses = [](const std::string& text, const std::string& expected) {
    EXPECT_THROW_WITH(parse_toml_config(text, "bad.toml"), ConfigError, std::string("bad.toml:"), expected);
  };
  refuses("a = [1, 2]", "arrays are not accepted");
  refuses("a = {x = 1}", "inline tables");
  refuses("[[runs]\n", "no closing ]]");
  refuses("x = 1\n[[x]]", "[[x]] names a key already set (on line 1)");
  refuses("[a]\n[[a]]", "[[a]] names a [section]");
  refuses("[[a.b]]\nx = 1\nx = 2", "key 'a.b.x' is set twice (first on line 2)");
  refuses("[[a.b]]\n[a]\nb = 3", "key 'a.b' is also an array of tables (on line 1)");
  refuses("[[a]]\n[a]", "[a] names an array of tables (on line 1)");
  refuses("[ [a] ]", "'[' cannot start a key");  // not an array header: TOML has no space inside [[
  refuses("[[a] ]", "no closing ]]");
  refuses("[a.b]\nx = 1", "nested sections");
  refuses("[a]\nx = 1\n[a]\ny = 2", "section [a] appears twice (first on line 1)");
  refuses("x = 1\n\nx = 2", "bad.toml:3: key 'x' is set twice (first on line 1)");
  refuses("[t]\nx = 1\n[u]\n[t]", "appears twice");
  refuses("x = \"open", "no closing \"");
  refuses("x = \"bad \\q\"", "unknown escape \\q");
  refuses("x = \"\\uD800\"", "not a character");
  refuses("x = 1 2", "unexpected '2'");
  refuses("x =", "the value is missing");
  refuses("= 1", "'=' cannot start a key");
  refuses("x 1", "expected '='");
  refuses("x = \"\"\"long\"\"\"", "multi-line strings");
  refuses("[train\nx = 1", "no closing ]");
}

// [[data.corpus]]: each table's header is an entry of its own (so an empty table is seen), and its
// keys follow with the table's index; another table of the array may set the same keys again.
TEST(TomlReader, ArraysOfTablesNumberTheirTables) {
  const auto entries = parse_toml_config(
      "[data]\ndev = \"d\"\n[[data.corpus]]\nsource = \"a\"\nweight = 2\n[[data.corpus]]\n[[data.corpus]]\n"
      "source = \"c\"\n[train]\nsteps = 3\n",
      "t.toml");
  ASSERT_EQ(entries.size(), 8u);
  EXPECT_EQ(entries[0].key, "data.dev");
  EXPECT_EQ(entries[0].table, -1);
  EXPECT_EQ(entries[1].kind, Kind::table);
  EXPECT_EQ(entries[1].key, "data.corpus");
  EXPECT_EQ(entries[1].table, 0);
  EXPECT_EQ(entries[1].line, 3);
  EXPECT_EQ(entries[2].key, "data.corpus.source");
  EXPECT_EQ(entries[2].table, 0);
  EXPECT_EQ(entries[3].key, "data.corpus.weight");
  EXPECT_EQ(entries[3].kind, Kind::integer);
  EXPECT_EQ(entries[4].table, 1);  // an empty table
  EXPECT_EQ(entries[4].kind, Kind::table);
  EXPECT_EQ(entries[5].table, 2);
  EXPECT_EQ(entries[6].key, "data.corpus.source");
  EXPECT_EQ(entries[6].value, "c");
  EXPECT_EQ(entries[6].table, 2);
  EXPECT_EQ(entries[7].key, "train.steps");
  EXPECT_EQ(entries[7].table, -1);
}

TEST(TomlReader, InlineTablesAreOneLineOfKeysAndValues) {
  for (const std::string& text : {std::string("{source = \"a b\", weight = 2.5, reverse = true}"),
                                  std::string("  source='a b',weight=2.5 ,reverse = true  ")}) {
    const auto entries = parse_toml_inline_table(text, "--x");
    ASSERT_EQ(entries.size(), 3u) << text;
    EXPECT_EQ(entries[0].key, "source");
    EXPECT_EQ(entries[0].value, "a b");
    EXPECT_EQ(entries[1].value, "2.5");
    EXPECT_EQ(entries[1].kind, Kind::floating);
    EXPECT_EQ(entries[2].kind, Kind::boolean);
  }
  EXPECT_TRUE(parse_toml_inline_table("{}", "--x").empty());
  EXPECT_TRUE(parse_toml_inline_table("", "--x").empty());
  EXPECT_THROW_WITH(parse_toml_inline_table("{a = 1", "--x"), ConfigError, "--x: the inline table has no closing }");
  EXPECT_THROW_WITH(parse_toml_inline_table("{a = 1} b", "--x"), ConfigError, "unexpected 'b' after the table");
  EXPECT_THROW_WITH(parse_toml_inline_table("a = 1, a = 2", "--x"), ConfigError, "key 'a' is set twice");
  EXPECT_THROW_WITH(parse_toml_inline_table("a = x.es", "--x"), ConfigError, "'x.es' is not a TOML value");
  EXPECT_THROW_WITH(parse_toml_inline_table("a = [1]", "--x"), ConfigError, "arrays are not accepted");
  EXPECT_THROW_WITH(parse_toml_inline_table("a = 1\nb = 2", "--x"), ConfigError, "an inline table is one line");
  EXPECT_THROW_WITH(parse_toml_inline_table("a 1", "--x"), ConfigError, "expected '=' after the key");
}

TEST(TomlReader, BinaryAndNonTextAreRefused) {
  EXPECT_THROW_WITH(parse_toml_config("x = 1\n\x7f" "ELF\x02\x01", "bin"), ConfigError, "bin:2: not a text file");
  EXPECT_THROW_WITH(parse_toml_config(std::string("x = 1\0", 6), "nul"), ConfigError, "nul:1: not a text file");
  EXPECT_THROW_WITH(parse_toml_config("x = \"\xff\"", "latin"), ConfigError, "latin: not a text file (invalid UTF-8");
  // A byte-order mark is skipped, not read as part of the first key.
  const auto entries = parse_toml_config("\xEF\xBB\xBFthreads = 1\n", "bom");
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].key, "threads");
}

// What nmt::toml_string writes, parse_toml_config reads back byte for byte (a run's config.toml once
// turned the path a\b into a, backspace, b; found by fuzzing).
TEST(TomlReader, WrittenStringsReadBackExactly) {
  for (const std::string& text : {std::string("a\\b"), std::string("it's \"both\""), std::string("r\ns/tiny\ttab"),
                                 std::string("\x01\x1f\x7f ctl"), std::string("caf\xC3\xA9 # not a comment"),
                                 std::string("")}) {
    const auto entries = parse_toml_config("k = " + nmt::toml_string(text) + "\n", "w");
    ASSERT_EQ(entries.size(), 1u) << text;
    EXPECT_EQ(entries[0].value, text);
  }
}

}  // namespace
}  // namespace nmt
