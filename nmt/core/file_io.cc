#include "nmt/core/file_io.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "nmt/core/error.h"
#include "nmt/core/pending_temporaries.h"

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

constexpr const char* kTemporaryInfix = ".tmp.";
constexpr std::size_t kTemporarySuffix = 6;  // mkstemp's XXXXXX

// The process umask, read without changing it (umask() can only be read by setting it, which would
// race with other threads creating files).
mode_t current_umask() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
  }
  return 022;
}

std::string parent_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

bool is_temporary_name(const std::string& name, const std::string& stem) {
  const std::string prefix = stem + kTemporaryInfix;
  return name.size() == prefix.size() + kTemporarySuffix && name.compare(0, prefix.size(), prefix) == 0;
}

bool is_any_temporary_name(const std::string& name) {
  const auto infix = name.rfind(kTemporaryInfix);
  return infix != std::string::npos && infix > 0 && name.size() == infix + std::strlen(kTemporaryInfix) + kTemporarySuffix;
}

// Removes `path` if it is a regular file that no process holds locked. A writer keeps its
// temporary file locked from creation to rename, and the lock dies with the writer.
bool remove_if_abandoned(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  struct stat st {};
  bool removed = false;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ::flock(fd, LOCK_EX | LOCK_NB) == 0) {
    // Unlinked while we hold the lock, so a writer that takes it after us sees its name gone.
    removed = ::unlink(path.c_str()) == 0;
  }
  ::close(fd);
  return removed;
}

void remove_abandoned_temporaries_of(const std::string& target) {
  const std::string stem = fs::path(target).filename().string();
  std::error_code ec;
  for (fs::directory_iterator it(parent_of(target), ec), end; !ec && it != end; it.increment(ec)) {
    if (is_temporary_name(it->path().filename().string(), stem)) remove_if_abandoned(it->path().string());
  }
}

// Creates a locked temporary file beside `target` with the permissions an ordinary open() would
// give (or those of the file it replaces); returns its descriptor.
int create_locked_temporary(const std::string& target, const std::string& shown, std::string& tmp, mode_t mode) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    tmp = target + kTemporaryInfix + "XXXXXX";
    const int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
    if (fd < 0) throw IoError("cannot write " + shown + ": " + std::strerror(errno));
    // Between mkostemp and flock another writer's clean-up may have taken the lock and removed the
    // name; then the lock is ours but the name is gone: start again.
    struct stat by_fd {}, by_name {};
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0 && ::fstat(fd, &by_fd) == 0 && ::stat(tmp.c_str(), &by_name) == 0 &&
        by_fd.st_ino == by_name.st_ino && by_fd.st_dev == by_name.st_dev) {
      ::fchmod(fd, mode);
      return fd;
    }
    ::close(fd);
  }
  throw IoError("cannot write " + shown + ": could not create a temporary file beside it");
}

void sync_directory(const std::string& directory) {
  const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);  // best effort: makes the rename durable
  ::close(fd);
}

}  // namespace

namespace {

// Follows the chain of links at `path`; `through_proc` says whether it passes through /proc
// (/dev/stdout -> /proc/self/fd/1 -> pipe:[123]: the kernel's magic links, which name no path).
std::string follow_links(const std::string& path, bool& through_proc) {
  const auto in_proc = [](const std::string& file) {  // /dev/fd/3 lies in /proc/self/fd
    char directory[PATH_MAX];
    return ::realpath(parent_of(file).c_str(), directory) != nullptr && std::string(directory).rfind("/proc/", 0) == 0;
  };
  std::string current = path;
  through_proc = in_proc(current);
  for (int depth = 0; depth < 40; ++depth) {
    struct stat st {};
    if (::lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return current;
    std::string link(static_cast<std::size_t>(PATH_MAX), '\0');
    const ssize_t n = ::readlink(current.c_str(), link.data(), link.size());
    if (n < 0) throw IoError("cannot follow link " + current + ": " + std::strerror(errno));
    link.resize(static_cast<std::size_t>(n));
    current = fs::path(link).is_absolute() ? link : (fs::path(parent_of(current)) / link).string();
    through_proc = through_proc || in_proc(current);
  }
  throw IoError("cannot write " + path + ": too many levels of symbolic links");
}

}  // namespace

void refuse_existing_output(const std::string& path, bool replace) {
  std::error_code ec;
  if (!replace && fs::exists(path, ec)) {
    throw IoError("cannot write " + path + ": it exists (--force replaces it; the file is replaced atomically)");
  }
}

std::string resolve_output_path(const std::string& path) {
  bool through_proc = false;
  return follow_links(path, through_proc);
}

void check_distinct_outputs(const std::vector<std::pair<std::string, std::string>>& outputs) {
  struct Seen {
    std::string role, path, resolved;
  };
  std::vector<Seen> seen;
  for (const auto& [role, path] : outputs) {
    if (path.empty() || path == "-") continue;
    bool through_proc = false;
    std::string resolved = follow_links(path, through_proc);
    struct stat st {};
    const bool exists = ::stat(path.c_str(), &st) == 0;
    if (through_proc || (exists && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))) continue;  // devices, FIFOs, /dev/fd/N may be shared
    std::error_code ec;
    const fs::path canonical = fs::weakly_canonical(resolved, ec);
    if (!ec) resolved = canonical.string();
    for (const auto& other : seen) {
      if (other.resolved == resolved) {
        throw IoError(role + " " + path + " is the same file as " + other.role + " " + other.path +
                      ": give each output its own path");
      }
    }
    seen.push_back({role, path, resolved});
  }
}

int remove_stale_temporaries(const std::string& directory) {
  int removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
    if (is_any_temporary_name(it->path().filename().string()) && remove_if_abandoned(it->path().string())) ++removed;
  }
  return removed;
}

void write_file_atomic(const std::string& path, std::string_view bytes) {
  AtomicOutputFile out(path);
  out.write(bytes);
  out.commit();
}

AtomicOutputFile::AtomicOutputFile(std::string path) : path_(std::move(path)) {
  if (path_.empty()) throw IoError("cannot write an output file with an empty name");
  bool through_proc = false;
  target_ = follow_links(path_, through_proc);
  const std::string shown = target_ == path_ ? path_ : path_ + " (-> " + target_ + ")";
  struct stat st {};
  const bool exists = ::stat(path_.c_str(), &st) == 0;  // as open() sees it, magic links included
  if (exists && S_ISDIR(st.st_mode)) throw IoError("cannot write " + shown + ": is a directory");
  if (exists && S_ISSOCK(st.st_mode)) throw IoError("cannot write " + shown + ": is a socket");
  int fd = -1;
  if (exists && (!S_ISREG(st.st_mode) || through_proc)) {
    // A device, a FIFO, or a descriptor named through /proc (/dev/stdout, /dev/fd/N, >(...)):
    // write it in place, as `> path` would; renaming over it would replace it.
    fd = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | (S_ISREG(st.st_mode) ? O_TRUNC : 0));
    if (fd < 0) throw IoError("cannot write " + shown + ": " + std::strerror(errno));
  } else {
    if (through_proc) throw IoError("cannot write " + shown + ": not a file that can be created");
    const std::string parent = parent_of(target_);
    struct stat parent_st {};
    if (::stat(parent.c_str(), &parent_st) != 0) {
      throw IoError("cannot write " + shown + ": folder " + parent + " does not exist");
    }
    if (!S_ISDIR(parent_st.st_mode)) throw IoError("cannot write " + shown + ": " + parent + " is not a folder");
    remove_abandoned_temporaries_of(target_);
    const mode_t mode = exists ? (st.st_mode & 07777) : (0666 & ~current_umask());
    fd = create_locked_temporary(target_, shown, tmp_path_, mode);
    pending_slot_ = note_pending_temporary(tmp_path_);  // a stop signal from here on removes it
  }
  file_ = ::fdopen(fd, "wb");
  if (!file_) {
    const std::string reason = std::strerror(errno);
    remove_temporary();  // before closing: the lock guards the name
    ::close(fd);
    throw IoError("cannot write " + shown + ": " + reason);
  }
}

AtomicOutputFile::~AtomicOutputFile() {
  if (!file_) return;
  remove_temporary();  // before closing: the lock guards the name
  std::fclose(file_);
}

void AtomicOutputFile::remove_temporary() {
  if (!tmp_path_.empty()) ::unlink(tmp_path_.c_str());
  forget_pending_temporary(pending_slot_);
  pending_slot_ = -1;
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
  if (tmp_path_.empty()) {  // a device or FIFO: flushing is all there is
    const bool flushed = std::fflush(file) == 0;
    const std::string reason = std::strerror(errno);
    if (std::fclose(file) != 0 || !flushed) throw IoError("cannot write " + path_ + ": " + reason);
    return;
  }
  const bool flushed = std::fflush(file) == 0 && ::fsync(::fileno(file)) == 0;
  const std::string reason = std::strerror(errno);
  if (!flushed) {
    remove_temporary();
    std::fclose(file);
    throw IoError("cannot write " + path_ + ": " + reason);
  }
  if (std::rename(tmp_path_.c_str(), target_.c_str()) != 0) {
    const std::string rename_reason = std::strerror(errno);
    remove_temporary();
    std::fclose(file);
    throw IoError("cannot rename into " + path_ + ": " + rename_reason);
  }
  forget_pending_temporary(pending_slot_);  // after the rename: a handler before it removes the file
  std::fclose(file);  // releases the lock only now that the temporary name is gone
  sync_directory(parent_of(target_));
}

}  // namespace nmt
