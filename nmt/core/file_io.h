// Whole-file reads and atomic writes. Outputs are written to a temporary file beside the target
// and renamed into place, so a crash or an interrupt never leaves a half-written file.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace nmt {

/// Reads a whole file as bytes; throws IoError naming the path and the reason.
std::string read_file(const std::string& path);

/// Writes `bytes` to `path` atomically (temporary file in the same directory, fsync, rename).
/// Creates missing parent directories. Throws IoError naming the path and the reason.
void write_file_atomic(const std::string& path, std::string_view bytes);

/// A file written in pieces that appears at its path only on commit(): until then it is a
/// temporary file beside the target, removed if the object is destroyed without commit().
class AtomicOutputFile {
 public:
  explicit AtomicOutputFile(std::string path);  // throws IoError
  ~AtomicOutputFile();
  AtomicOutputFile(const AtomicOutputFile&) = delete;
  AtomicOutputFile& operator=(const AtomicOutputFile&) = delete;

  void write(std::string_view bytes);  // throws IoError
  void commit();                       // flush, fsync, rename; throws IoError
  const std::string& path() const { return path_; }

 private:
  std::string path_, tmp_path_;
  std::FILE* file_ = nullptr;
};

}  // namespace nmt
