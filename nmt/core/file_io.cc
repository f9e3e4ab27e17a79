#include "nmt/core/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "nmt/core/error.h"

namespace nmt {
namespace fs = std::filesystem;

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw IoError("cannot read " + path + ": is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError("cannot open " + path + ": " + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw IoError("cannot read " + path + ": " + std::strerror(errno));
  return buffer.str();
}

namespace {

// The process umask, read without changing it (umask() can only be read by setting it, which would
// race with other threads creating files).
mode_t current_umask() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
  }
  return 022;
}

// Creates the parent directories of `path` and a temporary file beside it; returns its descriptor.
int create_temporary_beside(const std::string& path, std::string& tmp) {
  const fs::path target(path);
  std::error_code ec;
  if (fs::is_directory(target, ec)) throw IoError("cannot write " + path + ": is a directory");
  if (target.has_parent_path()) {
    fs::create_directories(target.parent_path(), ec);
    if (ec) throw IoError("cannot create directory " + target.parent_path().string() + ": " + ec.message());
  }
  tmp = path + ".tmp.XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) throw IoError("cannot write " + path + ": " + std::strerror(errno));
  // mkstemp creates the file 0600; give it the permissions an ordinary open() would.
  ::fchmod(fd, 0666 & ~current_umask());
  return fd;
}

}  // namespace

void write_file_atomic(const std::string& path, std::string_view bytes) {
  AtomicOutputFile out(path);
  out.write(bytes);
  out.commit();
}

AtomicOutputFile::AtomicOutputFile(std::string path) : path_(std::move(path)) {
  const int fd = create_temporary_beside(path_, tmp_path_);
  file_ = ::fdopen(fd, "wb");
  if (!file_) {
    ::close(fd);
    ::unlink(tmp_path_.c_str());
    throw IoError("cannot write " + path_ + ": " + std::strerror(errno));
  }
}

AtomicOutputFile::~AtomicOutputFile() {
  if (file_) {
    std::fclose(file_);
    ::unlink(tmp_path_.c_str());
  }
}

void AtomicOutputFile::write(std::string_view bytes) {
  if (!file_) throw IoError("cannot write " + path_ + ": already committed");
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    throw IoError("cannot write " + path_ + ": " + std::strerror(errno));
  }
}

void AtomicOutputFile::commit() {
  if (!file_) throw IoError("cannot commit " + path_ + ": already committed");
  std::FILE* file = file_;
  file_ = nullptr;
  const bool flushed = std::fflush(file) == 0 && ::fsync(::fileno(file)) == 0;
  const std::string reason = std::strerror(errno);
  if (std::fclose(file) != 0 || !flushed) {
    ::unlink(tmp_path_.c_str());
    throw IoError("cannot write " + path_ + ": " + reason);
  }
  if (std::rename(tmp_path_.c_str(), path_.c_str()) != 0) {
    const std::string rename_reason = std::strerror(errno);
    ::unlink(tmp_path_.c_str());
    throw IoError("cannot rename into " + path_ + ": " + rename_reason);
  }
}

}  // namespace nmt
