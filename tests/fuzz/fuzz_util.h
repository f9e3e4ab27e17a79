// Shared by the fuzz targets (docs/fuzzing.md): inputs as files the loaders can open, and checks
// that turn a broken invariant into a crash (what libFuzzer and the replay tests detect).
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <typeinfo>

namespace nmt::fuzz {

[[noreturn]] inline void fail(const char* file, int line, const std::string& message) {
  std::fprintf(stderr, "\nfuzz finding: %s:%d: %s\n", file, line, message.c_str());
  std::fflush(stderr);
  std::abort();
}

/// A broken invariant: abort with the condition and a message.
#define FUZZ_CHECK(condition, message)                                                             \
  do {                                                                                             \
    if (!(condition)) ::nmt::fuzz::fail(__FILE__, __LINE__, std::string("check failed: " #condition ": ") + (message)); \
  } while (0)

/// An exception the code under test documents not to throw (its contract names nmt::Error kinds).
[[noreturn]] inline void unexpected(const char* file, int line, const char* what_was_called, const std::exception& e) {
  fail(file, line,
       std::string(what_was_called) + " threw " + typeid(e).name() + " (not an nmt::Error): " +
           std::string(e.what()).substr(0, 500));
}
#define FUZZ_UNEXPECTED(call, exception) ::nmt::fuzz::unexpected(__FILE__, __LINE__, call, exception)

/// A file in memory (memfd_create) with a path that the loaders can open: /proc/self/fd/N. No file
/// system is touched, and parallel fuzzing processes cannot collide.
class MemoryFile {
 public:
  explicit MemoryFile(const char* name) {
    fd_ = ::memfd_create(name, MFD_CLOEXEC);
    if (fd_ < 0) fail(__FILE__, __LINE__, "memfd_create failed");
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~MemoryFile() { ::close(fd_); }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;

  /// Replaces the content.
  void set(std::string_view bytes) {
    if (::ftruncate(fd_, 0) != 0) fail(__FILE__, __LINE__, "ftruncate failed");
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::pwrite(fd_, bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
      if (n <= 0) fail(__FILE__, __LINE__, "pwrite failed");
      done += static_cast<std::size_t>(n);
    }
  }
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

inline std::string_view as_view(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// A file of the repository's tests/fuzz directory (seeds, fixtures).
inline std::string fuzz_path(const std::string& relative) { return std::string(NMT_FUZZ_DIR) + "/" + relative; }

}  // namespace nmt::fuzz
