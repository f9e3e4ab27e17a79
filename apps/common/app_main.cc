#include "apps/common/app_main.h"

#include <spdlog/spdlog.h>

#include <iostream>

#include "nmt/core/error.h"
#include "nmt/core/logging.h"
#include "nmt/core/version.h"

namespace nmt::app {

void add_common_options(CLI::App& app) {
  app.fallthrough();  // --log-level also after a subcommand
  app.set_version_flag("--version", "nmt " + nmt::version())->configurable(false);
  app.add_option_function<std::string>(
         "--log-level", [](const std::string& level) { nmt::set_log_level(nmt::parse_log_level(level)); },
         "Log verbosity: trace, debug, info, warn, error, off")
      ->default_str("info")
      ->configurable(false);
}

int run(CLI::App& app, int argc, char** argv, const std::function<void()>& body) {
  try {
    nmt::set_log_level(nmt::LogLevel::info);
    app.parse(argc, argv);
  } catch (const CLI::ConfigError& e) {
    // CLI11 says "INI was not able to parse train.max-step" for an unknown key.
    std::string message = e.what();
    const std::string unknown = "INI was not able to parse ";
    if (message.rfind(unknown, 0) == 0) message = "configuration: unknown key '" + message.substr(unknown.size()) + "'";
    spdlog::error("{} (see --help for the options)", message);
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
