// The library logs through spdlog internally; its public face is only a level and an optional file.
#pragma once

#include <string>
#include <string_view>

namespace nmt {

enum class LogLevel { trace, debug, info, warn, error, off };

/// Parses "trace", "debug", "info", "warn", "error" or "off"; throws ConfigError otherwise.
LogLevel parse_log_level(std::string_view name);

/// Sets the level of the library's console log (stderr).
void set_log_level(LogLevel level);

/// Also writes the log to `path` (appending), e.g. a training run's log file.
void add_log_file(const std::string& path);

}  // namespace nmt
