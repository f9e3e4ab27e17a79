// ExitOnSignal: a signal before the program takes signals as requests ends it at once with one
// line; a SignalGuard made meanwhile takes the signals over and gives them back.
#include "nmt/core/exit_on_signal.h"

#include <gtest/gtest.h>

#include <csignal>

#include "nmt/core/signal_guard.h"

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
