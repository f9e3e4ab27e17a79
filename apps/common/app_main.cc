#include "apps/common/app_main.h"

#include "apps/common/option_table.h"

#include <spdlog/spdlog.h>

#include <iostream>
#include <string>
#include <vector>

#include "apps/common/config_file.h"

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

void require_decimal_checks(const CLI::App& app) {
  for (const CLI::Option* option : app.get_options()) {
    const std::string full_type = option->get_type_name();  // "INT", or "INT:POSITIVE" with a check's name
    const std::string type = full_type.substr(0, full_type.find(':'));
    if (type != "INT" && type != "UINT" && type != "FLOAT") continue;
    try {
      const_cast<CLI::Option*>(option)->get_validator(kDecimalCheck);
    } catch (const CLI::OptionNotFound&) {
      throw std::logic_error("option " + option->get_name() + " was registered without add_number_option");
    }
  }
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) require_decimal_checks(*sub);
}

namespace {

// The --config files named in argv (both "--config F" and "--config=F").
std::vector<std::string> config_arguments(int argc, char** argv) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--config" && i + 1 < argc) files.emplace_back(argv[++i]);
    if (arg.rfind("--config=", 0) == 0) files.push_back(arg.substr(9));
  }
  return files;
}

// A library ConfigError names its key first ("train.label-smoothing must be ..."): when a
// configuration file set that key and the command line did not, say where.
std::string with_config_origin(const std::string& message) {
  const std::string key = message.substr(0, message.find_first_of(" :"));
  const std::string origin = config_key_origin(key);
  return origin.empty() ? message : origin + ": " + message;
}

}  // namespace

int run(CLI::App& app, int argc, char** argv, const std::function<void()>& body) {
  require_decimal_checks(app);  // a programming error, not the user's: it ends the program at once
  note_command_line(argc, argv);  // so that a value given there is never blamed on a config file
  try {
    nmt::set_log_level(nmt::LogLevel::info);  // also installs the stderr logger
    for (const std::string& file : config_arguments(argc, argv)) check_config_file(file);
    app.parse(argc, argv);
  } catch (const nmt::ConfigError& e) {  // check_config_file
    spdlog::error("{}", e.what());
    return 2;
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
  } catch (const nmt::ConfigError& e) {
    spdlog::error("{}", with_config_origin(e.what()));
    return 1;
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return 1;
  }
}

}  // namespace nmt::app
