// The programs' shared error handling. usage_error_message reads CLI11's English: pinned here to
// the CLI11 we build with, by provoking CLI11's own error for a config-file key nobody takes.
#include "apps/common/app_main.h"

#include <gtest/gtest.h>

#include "tests/test_util.h"

namespace nmt::app {
namespace {

TEST(UsageErrorMessage, CliElevensUnknownConfigKeyIsNamedAsOurs) {
  test::TempDir dir;
  test::write_text(dir.path("c.ini"), "colour = 1\n");
  CLI::App app{"test"};
  int value = 0;
  app.add_option("--value", value);
  app.set_config("--config");
  app.allow_config_extras(CLI::config_extras_mode::error);
  const std::string path = dir.path("c.ini");
  std::vector<std::string> args = {"program", "--config", path};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
    ADD_FAILURE() << "an unknown key was accepted";
  } catch (const CLI::ConfigError& e) {
    EXPECT_EQ(usage_error_message(e.what()), "configuration: unknown key 'colour'") << e.what();
  }
  EXPECT_EQ(usage_error_message("--beam-size: Value x could not be converted"), "--beam-size: Value x could not be converted");
}

}  // namespace
}  // namespace nmt::app
