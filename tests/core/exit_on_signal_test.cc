// ExitOnSignal: a signal before the program takes signals as requests ends it at once with one
// line; a SignalGuard made meanwhile takes the signals over and gives them back.
#include "nmt/core/exit_on_signal.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <memory>
#include <vector>

#include "nmt/core/file_io.h"
#include "nmt/core/signal_guard.h"
#include "tests/test_util.h"

namespace nmt {
namespace {

TEST(ExitOnSignal, EndsTheProcessWithOneLineNamingWhatItWasDoing) {
  EXPECT_EXIT(
      {
        ExitOnSignal exit_on_signal("prog", "starting up", "nothing was written");
        ExitOnSignal::now("loading the data", "no checkpoint written");
        std::raise(SIGTERM);
      },
      testing::ExitedWithCode(128 + SIGTERM), "prog: stopped by SIGTERM while loading the data; no checkpoint written");
  EXPECT_EXIT(
      {
        ExitOnSignal exit_on_signal("prog", "starting up", "nothing was written");
        std::raise(SIGINT);
      },
      testing::ExitedWithCode(128 + SIGINT), "prog: stopped by SIGINT while starting up; nothing was written");
}

TEST(ExitOnSignal, GivesWayToASignalGuardAndComesBackAfterIt) {
  EXPECT_EXIT(
      {
        ExitOnSignal exit_on_signal("prog", "starting up", "nothing was written");
        {
          SignalGuard guard;
          std::raise(SIGTERM);  // recorded, not an exit
          if (guard.take() != SIGTERM) std::_Exit(3);
        }
        ExitOnSignal::now("ending", "saved");
        std::raise(SIGTERM);
      },
      testing::ExitedWithCode(128 + SIGTERM), "prog: stopped by SIGTERM while ending; saved");
}

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A stop signal while files are being written: their temporaries go, the files they were to replace
// stay as they were, and files already written stay written (the suite once caught nmt-train
// stopped while writing config.toml leaving config.toml.tmp.* in its run directory).
TEST(ExitOnSignal, RemovesTheTemporariesOfFilesBeingWritten) {
  test::TempDir dir;
  write_file_atomic(dir.path("old.txt"), "as it was");
  EXPECT_EXIT(
      {
        ExitOnSignal exit_on_signal("prog", "writing", "nothing written");
        for (int i = 0; i < 200; ++i) write_file_atomic(dir.path("done.txt"), "written " + std::to_string(i));
        std::vector<std::unique_ptr<AtomicOutputFile>> open;  // more at once than one slot, fewer than all
        for (const char* name : {"old.txt", "new.txt", "third.txt"}) {
          open.push_back(std::make_unique<AtomicOutputFile>(dir.path(name)));
          open.back()->write("half of it");
        }
        std::raise(SIGTERM);
      },
      testing::ExitedWithCode(128 + SIGTERM), "prog: stopped by SIGTERM while writing; nothing written");
  EXPECT_EQ(names_in(dir.path("")), (std::vector<std::string>{"done.txt", "old.txt"}));
  EXPECT_EQ(read_file(dir.path("old.txt")), "as it was");
  EXPECT_EQ(read_file(dir.path("done.txt")), "written 199");
}

// A child forked while the parent writes a file inherits the parent's notes, not the file: its
// stop signal leaves the parent's temporary alone (nmt-train's launcher forks its ranks).
TEST(ExitOnSignal, AForkedChildLeavesItsParentsTemporariesAlone) {
  test::TempDir dir;
  AtomicOutputFile parents(dir.path("parent.txt"));
  parents.write("the parent's");
  EXPECT_EXIT(
      {
        ExitOnSignal exit_on_signal("child", "starting", "nothing written");
        std::raise(SIGTERM);
      },
      testing::ExitedWithCode(128 + SIGTERM), "child: stopped by SIGTERM while starting; nothing written");
  parents.commit();  // its temporary is still there to be renamed
  EXPECT_EQ(read_file(dir.path("parent.txt")), "the parent's");
}

TEST(ExitOnSignal, TextsAreKeptOnlyWhileOneLives) {
  {
    ExitOnSignal exit_on_signal("prog", "a", "b");
    EXPECT_EQ(ExitOnSignal::line(SIGINT), "prog: stopped by SIGINT while a; b");
  }
  ExitOnSignal::now("c", "d");  // none lives: ignored
  EXPECT_EQ(ExitOnSignal::line(SIGINT), "prog: stopped by SIGINT while a; b");
}

}  // namespace
}  // namespace nmt
