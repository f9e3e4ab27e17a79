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

/// Parses argv and runs `body`. Usage errors print CLI11's message and return its exit code
/// (--help returns 0); an exception from `body` is logged as one line with spdlog and returns 1.
int run(CLI::App& app, int argc, char** argv, const std::function<void()>& body);

}  // namespace nmt::app
