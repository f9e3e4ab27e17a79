// What LibTorch says, read back: the one place that parses c10's English (torch_error_reason) is
// pinned here to the LibTorch we build with, by provoking the real error.
#include "nmt/core/torch_error.h"

#include <ATen/ATen.h>
#include <c10/util/Exception.h>
#include <gtest/gtest.h>

namespace nmt {
namespace {

TEST(TorchErrorReason, AFailedAllocationSaysWhatWasAskedWithoutTheCheckItFailed) {
  try {
    const at::Tensor huge = at::empty({std::int64_t{1} << 52}, at::kByte);  // 4 PiB
    ADD_FAILURE() << "a 4 PiB tensor was allocated";
  } catch (const c10::Error& e) {
    const std::string reason = torch_error_reason(e);
    EXPECT_EQ(reason.rfind("DefaultCPUAllocator: ", 0), 0u) << first_line(e);
    EXPECT_NE(reason.find("allocate"), std::string::npos) << reason;
    EXPECT_EQ(reason.find("enforce fail"), std::string::npos) << reason;
    EXPECT_EQ(reason.find('\n'), std::string::npos) << reason;
  }
}

TEST(TorchErrorReason, OtherMessagesStayAsTheyAre) {
  EXPECT_EQ(torch_error_reason(std::runtime_error("plain\nsecond line")), "plain");
  EXPECT_EQ(torch_error_reason(std::runtime_error("[enforce fail at x.cpp:1] a == b. What it says")), "What it says");
}

}  // namespace
}  // namespace nmt
