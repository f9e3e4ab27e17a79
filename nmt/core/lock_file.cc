#include "nmt/core/lock_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <string>

#include "nmt/core/error.h"

namespace nmt {
namespace {

std::string holder_description() {
  char host[256] = {};
  if (::gethostname(host, sizeof(host) - 1) != 0) std::strcpy(host, "unknown host");
  char when[32] = {};
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  std::strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return "process " + std::to_string(::getpid()) + " on " + host + " since " + when;
}

std::string read_holder(int fd) {
  std::string text(512, '\0');
  const ssize_t n = ::pread(fd, text.data(), text.size(), 0);
  text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.pop_back();
  return text.empty() ? "another process" : text;
}

}  // namespace

LockFile::LockFile(const std::string& path, const std::string& what) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
  if (fd_ < 0) throw IoError("cannot lock " + what + ": cannot open " + path + ": " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    const std::string holder = read_holder(fd_);
    ::close(fd_);
    fd_ = -1;
    if (error == EWOULDBLOCK) throw IoError(what + " is in use by " + holder + " (lock file " + path + ")");
    throw IoError("cannot lock " + what + " (" + path + "): " + std::strerror(error));
  }
  const std::string holder = holder_description() + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, holder.data(), holder.size(), 0) != static_cast<ssize_t>(holder.size())) {
    // The lock holds without the description; a second process is told "another process".
  }
}

LockFile::~LockFile() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock; the file and its last holder's line stay
}

}  // namespace nmt
