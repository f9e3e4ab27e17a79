#include "nmt/data/text_file.h"

#include <gtest/gtest.h>

#include "nmt/core/error.h"
#include "tests/test_util.h"

namespace nmt {
namespace {

std::vector<std::string> all_lines(const std::string& path) {
  TextLineReader reader(path);
  std::vector<std::string> lines;
  for (std::string line; reader.next(line);) lines.push_back(line);
  return lines;
}

TEST(TextLineReader, StripsCrlfAndByteOrderMark) {
  test::TempDir dir;
  test::write_text(dir.path("t.txt"), "\xEF\xBB\xBFuno\r\ndos\n\ntres");
  EXPECT_EQ(all_lines(dir.path("t.txt")), (std::vector<std::string>{"uno", "dos", "", "tres"}));
}

TEST(TextLineReader, ByteOffsetsCountTheByteOrderMark) {
  test::TempDir dir;
  test::write_text(dir.path("bom.txt"), "\xEF\xBB\xBF" "ab\xFF\n");
  TextLineReader reader(dir.path("bom.txt"));
  std::string line;
  EXPECT_THROW_WITH(reader.next(line), DataError, "bom.txt:1: invalid UTF-8 at byte 6");
}

TEST(TextLineReader, InvalidUtf8NamesFileLineAndByte) {
  test::TempDir dir;
  test::write_text(dir.path("bad.es"), "bien\ntambién\nmal \xC3(\n");
  TextLineReader reader(dir.path("bad.es"));
  std::string line;
  ASSERT_TRUE(reader.next(line));
  ASSERT_TRUE(reader.next(line));
  EXPECT_EQ(reader.line_number(), 2u);
  EXPECT_THROW_WITH(reader.next(line), DataError, "bad.es:3: invalid UTF-8 at byte 5");
}

// NUL bytes once reached SentencePiece silently (which cuts a line at them).
TEST(TextLineReader, NulByteNamesFileLineAndByte) {
  test::TempDir dir;
  test::write_text(dir.path("nul.es"), std::string("uno\ndo\0s\n", 8));
  TextLineReader reader(dir.path("nul.es"));
  std::string line;
  ASSERT_TRUE(reader.next(line));
  EXPECT_THROW_WITH(reader.next(line), DataError, "nul.es:2: NUL byte at byte 3");
}

TEST(TextLineReader, MissingFileIsAnIoError) {
  test::TempDir dir;
  EXPECT_THROW_WITH(TextLineReader(dir.path("none.txt")), IoError, "none.txt", "No such file");
  EXPECT_THROW_WITH(TextLineReader(dir.root().string()), IoError, "is a directory");
}

}  // namespace
}  // namespace nmt
