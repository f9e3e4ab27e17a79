#include "nmt/core/logging.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <memory>

#include "nmt/core/error.h"
#include "nmt/core/log.h"

namespace nmt {
namespace {

spdlog::level::level_enum to_spdlog(LogLevel level) {
  switch (level) {
    case LogLevel::trace: return spdlog::level::trace;
    case LogLevel::debug: return spdlog::level::debug;
    case LogLevel::info: return spdlog::level::info;
    case LogLevel::warn: return spdlog::level::warn;
    case LogLevel::error: return spdlog::level::err;
    case LogLevel::off: return spdlog::level::off;
  }
  return spdlog::level::info;
}

// The default logger writes to stderr so that stdout stays free for program output
// (translations, encoded text) that users pipe elsewhere.
std::shared_ptr<spdlog::logger> stderr_logger() {
  static std::shared_ptr<spdlog::logger> logger = [] {
    auto created = spdlog::stderr_color_mt("nmt");
    created->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%^%l%$] %v");
    spdlog::set_default_logger(created);
    return created;
  }();
  return logger;
}

}  // namespace

spdlog::logger& log() { return *stderr_logger(); }

const EnumNames<LogLevel>& enum_names(LogLevel) {
  static const EnumNames<LogLevel> names("log level", {{LogLevel::trace, "trace"}, {LogLevel::debug, "debug"},
                                                       {LogLevel::info, "info"},   {LogLevel::warn, "warn"},
                                                       {LogLevel::error, "error"}, {LogLevel::off, "off"}});
  return names;
}

void set_log_level(LogLevel level) { stderr_logger()->set_level(to_spdlog(level)); }

LogLevel log_level() {
  switch (stderr_logger()->level()) {
    case spdlog::level::trace: return LogLevel::trace;
    case spdlog::level::debug: return LogLevel::debug;
    case spdlog::level::info: return LogLevel::info;
    case spdlog::level::warn: return LogLevel::warn;
    case spdlog::level::err:
    case spdlog::level::critical: return LogLevel::error;
    default: return LogLevel::off;
  }
}

void set_log_tag(const std::string& tag) {
  // The console sink is the logger's first; a run's log file keeps its own pattern.
  stderr_logger()->sinks().front()->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [" + tag + "] [%^%l%$] %v");
}

ScopedLogFile::ScopedLogFile(const std::string& path) {
  auto logger = stderr_logger();
  try {
    auto sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(path, /*truncate=*/false);
    sink->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%l] %v");
    sink->set_level(spdlog::level::trace);
    logger->sinks().push_back(sink);
    // Every line reaches the file when it is logged: a run killed with -9 (or a crashed rank) keeps
    // its log up to the end (a buffered sink lost the last 4 KiB, a whole run's lines at first).
    logger->flush_on(spdlog::level::trace);
    sink_ = sink;
  } catch (const spdlog::spdlog_ex& e) {
    throw IoError("cannot open log file " + path + ": " + e.what());
  }
}

void ScopedLogFile::write_error(const std::string& message) {
  auto sink = std::static_pointer_cast<spdlog::sinks::sink>(sink_);
  const spdlog::details::log_msg line(stderr_logger()->name(), spdlog::level::err, message);
  sink->log(line);
  sink->flush();
}

ScopedLogFile::~ScopedLogFile() {
  auto& sinks = stderr_logger()->sinks();
  sinks.erase(std::remove(sinks.begin(), sinks.end(), std::static_pointer_cast<spdlog::sinks::sink>(sink_)), sinks.end());
}

}  // namespace nmt
