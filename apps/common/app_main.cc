#include "apps/common/app_main.h"

#include <spdlog/spdlog.h>

#include <iostream>
#include <streambuf>
#include <string_view>
#include <vector>

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

namespace {

/// An ostream buffer that hands full 64 KiB blocks to an AtomicOutputFile.
class AtomicFileBuffer : public std::streambuf {
 public:
  explicit AtomicFileBuffer(AtomicOutputFile& file) : file_(file), buffer_(1 << 16) {
    setp(buffer_.data(), buffer_.data() + buffer_.size());
  }
  void flush_to_file() {
    file_.write(std::string_view(pbase(), static_cast<std::size_t>(pptr() - pbase())));
    setp(buffer_.data(), buffer_.data() + buffer_.size());
  }

 protected:
  int_type overflow(int_type c) override {
    flush_to_file();
    if (!traits_type::eq_int_type(c, traits_type::eof())) sputc(traits_type::to_char_type(c));
    return traits_type::not_eof(c);
  }
  int sync() override { return 0; }  // blocks reach the file when full and at finish()

 private:
  AtomicOutputFile& file_;
  std::vector<char> buffer_;
};

}  // namespace

struct TextOutput::Impl {
  std::unique_ptr<AtomicOutputFile> file;  // null: stdout
  std::unique_ptr<AtomicFileBuffer> buffer;
  std::unique_ptr<std::ostream> stream;
};

TextOutput::TextOutput(const std::string& path) : impl_(std::make_unique<Impl>()) {
  if (path.empty() || path == "-") return;
  impl_->file = std::make_unique<AtomicOutputFile>(path);
  impl_->buffer = std::make_unique<AtomicFileBuffer>(*impl_->file);
  impl_->stream = std::make_unique<std::ostream>(impl_->buffer.get());
}

TextOutput::~TextOutput() = default;

std::ostream& TextOutput::stream() { return impl_->file ? *impl_->stream : std::cout; }

void TextOutput::finish() {
  if (!impl_->file) {
    std::cout.flush();
    if (!std::cout) throw IoError("cannot write to standard output");
    return;
  }
  impl_->buffer->flush_to_file();  // throws IoError naming the file
  impl_->file->commit();
}

}  // namespace nmt::app
