// An exclusive lock on a file, held for an object's lifetime (flock(2)): the kernel releases it
// when the holding process ends in any way, kill -9 included, so a lock is never left stale.
// The file names its holder (process id, host, start time) for the message a second process gets.
// The lock file itself stays in place: removing it would let two processes lock two different files.
#pragma once

#include <string>

namespace nmt {

class LockFile {
 public:
  /// Takes the lock on `path` (created if missing) without waiting. Throws IoError if another
  /// process holds it: "<what> is in use by process PID on HOST since TIME (lock file PATH)".
  LockFile(const std::string& path, const std::string& what);
  ~LockFile();
  LockFile(const LockFile&) = delete;
  LockFile& operator=(const LockFile&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace nmt
