#include "nmt/core/file_io.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "nmt/core/error.h"
#include "tests/test_util.h"

namespace nmt {
namespace {
namespace fs = std::filesystem;
using test::TempDir;

// Only the named file may exist afterwards: no temporary leftovers.
std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(FileIo, WriteAtomicCreatesParentsAndRoundTrips) {
  TempDir dir;
  const std::string path = dir.path("a/b/file.bin");
  const std::string bytes("x\0y\nz", 5);
  write_file_atomic(path, bytes);
  EXPECT_EQ(read_file(path), bytes);
  write_file_atomic(path, "replaced");
  EXPECT_EQ(read_file(path), "replaced");
  EXPECT_EQ(entries(dir.root() / "a/b"), std::vector<std::string>{"file.bin"});
}

TEST(FileIo, ReadMissingFileNamesIt) {
  TempDir dir;
  EXPECT_THROW_WITH(read_file(dir.path("missing.txt")), IoError, "missing.txt", "No such file");
  EXPECT_THROW_WITH(read_file(dir.root().string()), IoError, "is a directory");
}

TEST(FileIo, WriteIntoUnwritablePlaceFails) {
  TempDir dir;
  test::write_text(dir.path("plain"), "");
  // A regular file where a directory is needed.
  EXPECT_THROW_WITH(write_file_atomic(dir.path("plain/inside.txt"), "x"), IoError, "plain");
  EXPECT_THROW_WITH(write_file_atomic(dir.root().string(), "x"), IoError, "is a directory");
}

TEST(FileIo, AtomicOutputFileAppearsOnlyOnCommit) {
  TempDir dir;
  const std::string path = dir.path("out.txt");
  {
    AtomicOutputFile out(path);
    out.write("hello ");
    out.write("world\n");
    EXPECT_FALSE(fs::exists(path));
    out.commit();
  }
  EXPECT_EQ(read_file(path), "hello world\n");
  EXPECT_EQ(entries(dir.root()), std::vector<std::string>{"out.txt"});
}

TEST(FileIo, AtomicOutputFileWithoutCommitLeavesNothing) {
  TempDir dir;
  test::write_text(dir.path("out.txt"), "old");
  {
    AtomicOutputFile out(dir.path("out.txt"));
    out.write("half-written");
  }  // e.g. an exception while producing the output
  EXPECT_EQ(read_file(dir.path("out.txt")), "old");
  EXPECT_EQ(entries(dir.root()), std::vector<std::string>{"out.txt"});
}

TEST(FileIo, AtomicOutputFileRejectsUseAfterCommit) {
  TempDir dir;
  AtomicOutputFile out(dir.path("x"));
  out.commit();
  EXPECT_THROW(out.write("late"), IoError);
  EXPECT_THROW(out.commit(), IoError);
}

}  // namespace
}  // namespace nmt
