#include "nmt/core/torch_log.h"

#include <c10/util/Logging.h>
#include <gtest/gtest.h>

#include <string>

namespace nmt {
namespace {

std::string logged_by_libtorch(const std::string& text) {
  testing::internal::CaptureStderr();
  LOG(ERROR) << text;
  LOG(WARNING) << text;
  return testing::internal::GetCapturedStderr();
}

// The programs hide LibTorch's own log (c10d's multi-line reports before an exception they
// report in one line) and show it again with --log-level debug.
TEST(TorchLog, HiddenAndShownAgain) {
  show_torch_log(false);
  EXPECT_EQ(logged_by_libtorch("hidden report"), "");
  show_torch_log(true);
  const std::string shown = logged_by_libtorch("shown report");
  EXPECT_NE(shown.find("shown report"), std::string::npos) << shown;
  show_torch_log(false);
  EXPECT_EQ(logged_by_libtorch("hidden again"), "");
}

}  // namespace
}  // namespace nmt
