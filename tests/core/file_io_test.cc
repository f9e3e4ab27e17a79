#include "nmt/core/file_io.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <thread>

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

TEST(FileIo, WriteAtomicRoundTripsAndRefusesAMissingFolder) {
  TempDir dir;
  const std::string path = dir.path("file.bin");
  const std::string bytes("x\0y\nz", 5);
  write_file_atomic(path, bytes);
  EXPECT_EQ(read_file(path), bytes);
  write_file_atomic(path, "replaced");
  EXPECT_EQ(read_file(path), "replaced");
  EXPECT_EQ(entries(dir.root()), std::vector<std::string>{"file.bin"});
  // A missing folder is a mistake in the path, not something to create silently.
  EXPECT_THROW_WITH(write_file_atomic(dir.path("a/b/file.bin"), "x"), IoError, "folder", "a/b", "does not exist");
  EXPECT_FALSE(fs::exists(dir.path("a")));
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

// The system's /dev/null must survive `-o /dev/null`, even as root: devices are written in place.
TEST(FileIo, DeviceNodeIsWrittenInPlaceNotReplaced) {
  TempDir dir;
  const std::string null_copy = dir.path("null");
  if (::mknod(null_copy.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) GTEST_SKIP() << "mknod needs root";
  write_file_atomic(null_copy, "into the void");
  struct stat st {};
  ASSERT_EQ(::stat(null_copy.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(st.st_rdev, makedev(1, 3));
  EXPECT_EQ(entries(dir.root()), std::vector<std::string>{"null"});
  write_file_atomic("/dev/null", "x");  // what `nmt-translate -o /dev/null` does
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST(FileIo, FifoIsWrittenInPlaceAndItsReaderGetsTheBytes) {
  TempDir dir;
  const std::string fifo = dir.path("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = read_file(fifo); });
  {
    AtomicOutputFile out(fifo);  // opens once the reader has
    EXPECT_FALSE(out.replaces_atomically());
    out.write("through ");
    out.write("the pipe\n");
    out.commit();
  }
  reader.join();
  EXPECT_EQ(received, "through the pipe\n");
  struct stat st {};
  ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

// bash's >(...) and /dev/stdout are links through /proc to a pipe (pipe:[123] names no path):
// written in place, never a file called "pipe:[123]" created in the working directory.
TEST(FileIo, DescriptorsNamedThroughProcAreWrittenInPlace) {
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const std::string through_dev_fd = "/dev/fd/" + std::to_string(pipe_fds[1]);
  write_file_atomic(through_dev_fd, "via /dev/fd\n");
  EXPECT_NO_THROW(check_distinct_outputs({{"-o", through_dev_fd}, {"--attention-output", through_dev_fd}}));
  ::close(pipe_fds[1]);
  char buffer[64] = {};
  EXPECT_EQ(std::string(buffer, static_cast<std::size_t>(::read(pipe_fds[0], buffer, sizeof(buffer)))), "via /dev/fd\n");
  ::close(pipe_fds[0]);
}

// A full disk: the error names the path and the reason, the old file survives whole, and no
// temporary file is left behind.
TEST(FileIo, FullDiskLeavesTheOldFileAndNoTemporary) {
  EXPECT_THROW_WITH(write_file_atomic("/dev/full", std::string(1 << 16, 'x')), IoError, "/dev/full",
                    "No space left on device");
  TempDir dir;
  const std::string small = dir.path("small");
  fs::create_directory(small);
  if (::mount("tmpfs", small.c_str(), "tmpfs", 0, "size=64k") != 0) GTEST_SKIP() << "mounting a tmpfs needs root";
  const std::string path = small + "/model.pt";
  test::write_text(path, "the old, complete file");
  EXPECT_THROW_WITH(write_file_atomic(path, std::string(1 << 20, 'x')), IoError, "model.pt", "No space left on device");
  EXPECT_EQ(read_file(path), "the old, complete file");
  EXPECT_EQ(entries(small), std::vector<std::string>{"model.pt"});
  ::umount(small.c_str());
}

TEST(FileIo, SymlinkChainIsFollowedAndTheLinksStay) {
  TempDir dir;
  fs::create_directory(dir.path("real"));
  test::write_text(dir.path("real/out.txt"), "old");
  fs::create_symlink("real/out.txt", dir.path("link1"));  // relative to the link's folder
  fs::create_symlink(dir.path("link1"), dir.path("link2"));
  EXPECT_EQ(resolve_output_path(dir.path("link2")), (dir.root() / "real/out.txt").string());
  write_file_atomic(dir.path("link2"), "new");
  EXPECT_TRUE(fs::is_symlink(dir.path("link1")));
  EXPECT_TRUE(fs::is_symlink(dir.path("link2")));
  EXPECT_EQ(read_file(dir.path("real/out.txt")), "new");
  EXPECT_EQ(entries(dir.root() / "real"), std::vector<std::string>{"out.txt"});
  // A dangling link creates its target.
  fs::create_symlink("real/later.txt", dir.path("dangling"));
  write_file_atomic(dir.path("dangling"), "created");
  EXPECT_EQ(read_file(dir.path("real/later.txt")), "created");
  // A loop is an error, not a hang.
  fs::create_symlink(dir.path("loop_b"), dir.path("loop_a"));
  fs::create_symlink(dir.path("loop_a"), dir.path("loop_b"));
  EXPECT_THROW_WITH(write_file_atomic(dir.path("loop_a"), "x"), IoError, "loop_a", "symbolic links");
}

TEST(FileIo, ReplacingAFileKeepsItsPermissions) {
  TempDir dir;
  const std::string path = dir.path("private.txt");
  test::write_text(path, "secret");
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
  write_file_atomic(path, "still secret");
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
}

TEST(FileIo, SocketAndDirectoryAreRefusedByName) {
  TempDir dir;
  fs::create_directory(dir.path("folder"));
  EXPECT_THROW_WITH(AtomicOutputFile out(dir.path("folder")), IoError, "folder", "is a directory");
  EXPECT_THROW_WITH(AtomicOutputFile out(""), IoError, "empty name");
}

// A writer killed with SIGKILL leaves its temporary file; the next writer of the path removes it,
// but never a temporary file that a living writer holds.
TEST(FileIo, TemporaryOfAKilledWriterIsRemovedByTheNextWriter) {
  TempDir dir;
  const std::string path = dir.path("out.txt");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    AtomicOutputFile out(path);
    out.write(std::string(1 << 20, 'x'));
    ::kill(::getpid(), SIGKILL);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  std::vector<std::string> left = entries(dir.root());
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].rfind("out.txt.tmp.", 0), 0u);
  EXPECT_FALSE(fs::exists(path));

  // A living writer's temporary file (locked) must survive the clean-up.
  const std::string busy = dir.path("out.txt.tmp.busy00");
  test::write_text(busy, "in progress");
  const int busy_fd = ::open(busy.c_str(), O_RDONLY);
  ASSERT_EQ(::flock(busy_fd, LOCK_EX), 0);
  write_file_atomic(path, "done");
  EXPECT_EQ(entries(dir.root()), (std::vector<std::string>{"out.txt", "out.txt.tmp.busy00"}));
  ::close(busy_fd);
  // Unlocked now: a whole-folder sweep removes it (the trainer runs one over its run directory).
  test::write_text(dir.path("other.pt.tmp.abc123"), "abandoned");
  test::write_text(dir.path("notes.tmp.txt"), "not a temporary: wrong shape of name");
  EXPECT_EQ(remove_stale_temporaries(dir.root().string()), 2);
  EXPECT_EQ(entries(dir.root()), (std::vector<std::string>{"notes.tmp.txt", "out.txt"}));
}

TEST(FileIo, DistinctOutputsAreCheckedAfterFollowingLinks) {
  TempDir dir;
  const std::string a = dir.path("a.txt");
  EXPECT_NO_THROW(check_distinct_outputs({{"-o", a}, {"--attention-output", dir.path("b.txt")}, {"x", "-"}, {"y", "-"}}));
  EXPECT_THROW_WITH(check_distinct_outputs({{"-o", a}, {"--attention-output", a}}), IoError, "--attention-output",
                    "same file as -o");
  EXPECT_THROW_WITH(check_distinct_outputs({{"-o", a}, {"--alignment-output", dir.path("./sub/../a.txt")}}), IoError,
                    "--alignment-output");
  fs::create_directory(dir.path("sub"));
  fs::create_symlink(a, dir.path("link"));
  EXPECT_THROW_WITH(check_distinct_outputs({{"-o", dir.path("link")}, {"--attention-output", a}}), IoError,
                    "same file");
  EXPECT_NO_THROW(check_distinct_outputs({{"-o", "/dev/null"}, {"--attention-output", "/dev/null"}}));
}

}  // namespace
}  // namespace nmt
