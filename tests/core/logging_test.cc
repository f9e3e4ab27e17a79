#include "nmt/core/logging.h"

#include <gtest/gtest.h>

#include "nmt/core/log.h"
#include "tests/test_util.h"

namespace nmt {
namespace {

// A run's log must hold every line as soon as it is logged: a process killed with -9 never
// flushes a buffer (distributed runs' train.log stayed empty for their first quarter hour).
TEST(ScopedLogFile, EveryLineIsInTheFileAtOnce) {
  test::TempDir dir;
  const std::string path = dir.path("train.log");
  ScopedLogFile file(path);
  log().info("first line");
  EXPECT_NE(test::read_text(path).find("[info] first line"), std::string::npos);
  log().debug("a debug line");  // below the console's level: what reaches the file is flushed too
  log().info("second line");
  EXPECT_NE(test::read_text(path).find("second line"), std::string::npos);
}

}  // namespace
}  // namespace nmt
