#include "apps/common/app_main.h"

#include <spdlog/spdlog.h>

#include <iostream>
#include <sstream>

#include "nmt/core/error.h"
#include "nmt/core/file_io.h"
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
    return app.exit(e);
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

struct TextOutput::Impl {
  std::unique_ptr<AtomicOutputFile> file;  // null: stdout
  std::ostringstream buffer;               // flushed to the file in pieces
};

TextOutput::TextOutput(const std::string& path) : impl_(std::make_unique<Impl>()) {
  if (!path.empty() && path != "-") impl_->file = std::make_unique<AtomicOutputFile>(path);
}

TextOutput::~TextOutput() = default;

std::ostream& TextOutput::stream() {
  if (!impl_->file) return std::cout;
  if (impl_->buffer.tellp() > (1 << 20)) {
    impl_->file->write(impl_->buffer.str());
    impl_->buffer.str({});
  }
  return impl_->buffer;
}

void TextOutput::finish() {
  if (!impl_->file) {
    std::cout.flush();
    if (!std::cout) throw IoError("cannot write to standard output");
    return;
  }
  impl_->file->write(impl_->buffer.str());
  impl_->buffer.str({});
  impl_->file->commit();
}

}  // namespace nmt::app
