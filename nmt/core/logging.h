// The library logs through spdlog internally; its public face is only a level and an optional file.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "nmt/core/enum_names.h"

namespace nmt {

enum class LogLevel { trace, debug, info, warn, error, off };

const EnumNames<LogLevel>& enum_names(LogLevel);  // trace, debug, info, warn, error, off

/// Sets the level of the library's console log (stderr).
void set_log_level(LogLevel level);
LogLevel log_level();

/// Puts "[tag] " before every console line (e.g. "rank 1": the ranks of a group share a terminal).
void set_log_tag(const std::string& tag);

/// While it lives, the log also goes to `path` (appended), e.g. a training run's log file.
class ScopedLogFile {
 public:
  explicit ScopedLogFile(const std::string& path);  // throws IoError
  ~ScopedLogFile();
  ScopedLogFile(const ScopedLogFile&) = delete;
  ScopedLogFile& operator=(const ScopedLogFile&) = delete;

  /// Writes an error line to this file only (e.g. the error that ends a run, which the program
  /// then prints on stderr itself).
  void write_error(const std::string& message);

 private:
  std::shared_ptr<void> sink_;
};

}  // namespace nmt
