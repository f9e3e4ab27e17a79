#include "nmt/core/enum_names.h"

#include <gtest/gtest.h>

#include "nmt/core/error.h"
#include "nmt/core/logging.h"
#include "tests/test_util.h"

namespace nmt {
namespace {

TEST(EnumNames, ParsesPrintsAndListsInTableOrder) {
  EXPECT_EQ(parse_enum<LogLevel>("warn"), LogLevel::warn);
  EXPECT_EQ(name_of(LogLevel::off), "off");
  EXPECT_EQ(enum_names(LogLevel{}).names(), (std::vector<std::string>{"trace", "debug", "info", "warn", "error", "off"}));
  for (const std::string& name : enum_names(LogLevel{}).names()) EXPECT_EQ(name_of(parse_enum<LogLevel>(name)), name);
}

TEST(EnumNames, OneWordingForAnUnknownName) {
  EXPECT_THROW_WITH(parse_enum<LogLevel>("loud"), ConfigError,
                    "unknown log level 'loud' (expected trace, debug, info, warn, error or off)");
  EXPECT_THROW_WITH(parse_enum<LogLevel>("WARN"), ConfigError, "unknown log level 'WARN'");  // exact names only
  EXPECT_THROW_WITH(parse_enum<LogLevel>(""), ConfigError, "unknown log level ''");
  // A megabyte of value is not echoed back.
  try {
    parse_enum<LogLevel>(std::string(1 << 20, 'x'));
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_LT(std::string(e.what()).size(), 200u);
    EXPECT_NE(std::string(e.what()).find(std::string(60, 'x') + "...'"), std::string::npos) << e.what();
  }
}

TEST(EnumNames, ChoicesAreJoinedAsProse) {
  EXPECT_EQ(join_choices({}), "");
  EXPECT_EQ(join_choices({"a"}), "a");
  EXPECT_EQ(join_choices({"a", "b"}), "a or b");
  EXPECT_EQ(join_choices({"a", "b", "c"}), "a, b or c");
}

TEST(EnumNames, AValueOutsideTheTableIsShownAsAQuestionMark) {
  EXPECT_EQ(name_of(static_cast<LogLevel>(42)), "?");
}

}  // namespace
}  // namespace nmt
