#include "nmt/data/tsv_columns.h"

#include <gtest/gtest.h>

#include "nmt/core/error.h"
#include "tests/test_util.h"

namespace nmt {
namespace {

TEST(TsvColumns, ByHeaderNamesOrByNumbersFromOne) {
  test::TempDir dir;
  test::write_text(dir.path("named.tsv"), "id\ten\tes\n1\tLight\tLuz\n2\tDay\tD\xC3\xAD" "a\n");
  const TsvColumns named = read_tsv_columns(dir.path("named.tsv"), {"es", "en"});
  EXPECT_EQ(named.fields[0], (std::vector<std::string>{"Luz", "D\xC3\xAD" "a"}));
  EXPECT_EQ(named.fields[1], (std::vector<std::string>{"Light", "Day"}));
  EXPECT_EQ(named.lines, (std::vector<std::size_t>{2, 3}));
  // Numbers: the file has no header line, every line is a row.
  const TsvColumns numbered = read_tsv_columns(dir.path("named.tsv"), {"3", "1"});
  EXPECT_EQ(numbered.fields[0], (std::vector<std::string>{"es", "Luz", "D\xC3\xAD" "a"}));
  EXPECT_EQ(numbered.lines, (std::vector<std::size_t>{1, 2, 3}));
  EXPECT_TRUE(is_tsv_column_number("12"));
  EXPECT_FALSE(is_tsv_column_number("0"));
  EXPECT_FALSE(is_tsv_column_number("01"));
  EXPECT_FALSE(is_tsv_column_number("en"));
}

TEST(TsvColumns, BadTablesNameTheFileAndLine) {
  test::TempDir dir;
  test::write_text(dir.path("t.tsv"), "en\tes\na\tb\nc\td\te\n");
  EXPECT_THROW_WITH(read_tsv_columns(dir.path("t.tsv"), {"es", "en"}), DataError, "t.tsv:3: 3 columns, where the file's first line has 2");
  EXPECT_THROW_WITH(read_tsv_columns(dir.path("t.tsv"), {"es", "de"}), ConfigError, "no column 'de' in its header line");
  test::write_text(dir.path("narrow.tsv"), "a\tb\n");
  EXPECT_THROW_WITH(read_tsv_columns(dir.path("narrow.tsv"), {"1", "3"}), DataError, "narrow.tsv:1: 2 columns, and column 3 was asked for");
  test::write_text(dir.path("empty.tsv"), "");
  EXPECT_THROW_WITH(read_tsv_columns(dir.path("empty.tsv"), {"es", "en"}), DataError, "needs a header line");
  EXPECT_THROW_WITH(read_tsv_columns(dir.path("missing.tsv"), {"es", "en"}), IoError, "missing.tsv");
}

}  // namespace
}  // namespace nmt
