// What every nmt program shares: --version and --log-level, and one way to end on an error.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <ostream>
#include <string>

namespace nmt::app {

/// Adds --version and --log-level to `app` (applied when run() parses).
void add_common_options(CLI::App& app);

/// A CLI11 usage error as the programs print it: CLI11's message for a config-file key no option
/// takes ("INI was not able to parse KEY") becomes "configuration: unknown key 'KEY'"; others stay.
/// The one place that reads CLI11's English (tests/apps pin it to the CLI11 we build with).
std::string usage_error_message(const std::string& cli11_message);

/// Parses argv and runs `body`. Usage errors print CLI11's message and return its exit code
/// (--help returns 0); an exception from `body` is logged as one line with spdlog and returns 1.
/// Needs no LibTorch: the programs that load models call run_with_libtorch (libtorch_app.h).
int run(CLI::App& app, int argc, char** argv, const std::function<void()>& body);

}  // namespace nmt::app
