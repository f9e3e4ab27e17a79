#include "apps/common/app_main.h"

#include "apps/common/option_table.h"

#include <spdlog/spdlog.h>

#include <iostream>

#include "nmt/core/error.h"
#include "nmt/core/logging.h"
#include "nmt/core/version.h"

namespace nmt::app {

void add_common_options(CLI::App& app) {
  app.fallthrough();  // --log-level also after a subcommand
  app.set_version_flag("--version", "nmt " + nmt::version())->configurable(false);
  add_parsed_option(app, "--log-level", "Log verbosity", enum_type_name<nmt::LogLevel>(), "info",
                    [](const std::string& name) { nmt::set_log_level(nmt::parse_enum<nmt::LogLevel>(name)); })
      ->configurable(false);
}

std::string usage_error_message(const std::string& cli11_message) {
  const std::string unknown = "INI was not able to parse ";
  if (cli11_message.rfind(unknown, 0) == 0) return "configuration: unknown key '" + cli11_message.substr(unknown.size()) + "'";
  return cli11_message;
}

int run(CLI::App& app, int argc, char** argv, const std::function<void()>& body) {
  try {
    nmt::set_log_level(nmt::LogLevel::info);
    app.parse(argc, argv);
  } catch (const CLI::ConfigError& e) {
    spdlog::error("{} (see --help for the options)", usage_error_message(e.what()));
    return 2;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // Every usage error is one line and exits 2 (CLI11 has a code per kind, e.g. 104 for a value
    // that does not convert).
    spdlog::error("{} (see --help for the options)", e.what());
    return 2;
  } catch (const std::exception& e) {  // e.g. a bad --log-level
    spdlog::error("{}", e.what());
    return 1;
  }
  try {
    body();
    return 0;
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return 1;
  }
}

}  // namespace nmt::app
