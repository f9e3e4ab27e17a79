// Whole-file reads and safe writes of output files (docs/reliability.md, "Output files").
//
// An output path is written according to what is there when writing starts:
// - nothing, or a regular file: a temporary file beside it is written, fsync'ed and renamed over the
//   path, so a crash or an interrupt never leaves a half-written file and the old file survives
//   until the new one is complete (its permission bits are kept);
// - a symbolic link: followed (to the end of a chain); the link stays and its target is written as above;
// - a device, a FIFO, a descriptor named through /proc (/dev/stdout, /dev/fd/N, bash's >(...)):
//   written directly (opened for writing, never created or renamed over), the way a shell
//   redirection writes it: `-o /dev/null` stays the system's /dev/null;
// - a directory, a socket, a missing parent folder: an IoError naming the path.
// Every temporary file is held under an flock(2) lock while it is written: the kernel releases the
// lock when its process dies, so leftovers of a killed writer (NAME.tmp.XXXXXX) are recognised and
// removed by the next writer of the same path (and by remove_stale_temporaries).
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nmt {

/// Reads a whole file as bytes; throws IoError naming the path and the reason.
std::string read_file(const std::string& path);

/// Writes `bytes` to `path` as AtomicOutputFile does. Throws IoError naming the path and the reason.
void write_file_atomic(const std::string& path, std::string_view bytes);

/// Throws IoError "cannot write PATH: it exists (--force replaces it; ...)" when `path` exists and
/// `replace` is false: the programs' outputs that are not replaced without being asked.
void refuse_existing_output(const std::string& path, bool replace);

/// The path an output to `path` really writes: symbolic links followed (relative ones against
/// their own folder), up to 40 levels. Throws IoError on a link loop.
std::string resolve_output_path(const std::string& path);

/// Throws IoError if two of the named output paths (option or role, path) would write the same
/// file (after following links; "-" and "" mean standard output and are skipped). Devices and
/// FIFOs may be shared: writing /dev/null twice is fine.
void check_distinct_outputs(const std::vector<std::pair<std::string, std::string>>& outputs);

/// Removes the temporary files (NAME.tmp.XXXXXX) in `directory` that no living writer holds,
/// i.e. the leftovers of killed processes. Returns how many it removed. Never throws.
int remove_stale_temporaries(const std::string& directory);

/// A file written in pieces that appears at its path only on commit() (see the top of this file
/// for devices, FIFOs and links). Destroyed without commit(), it leaves the path as it was.
class AtomicOutputFile {
 public:
  explicit AtomicOutputFile(std::string path);  // throws IoError
  ~AtomicOutputFile();
  AtomicOutputFile(const AtomicOutputFile&) = delete;
  AtomicOutputFile& operator=(const AtomicOutputFile&) = delete;

  void write(std::string_view bytes);  // throws IoError
  void commit();                       // flush (fsync and rename for files); throws IoError
  const std::string& path() const { return path_; }
  /// False when the path is a device or FIFO written in place.
  bool replaces_atomically() const { return !tmp_path_.empty(); }

 private:
  std::string path_;    // as given
  std::string target_;  // links resolved
  std::string tmp_path_;
  int pending_slot_ = -1;  // note_pending_temporary's: a stop signal's handler removes tmp_path_
  std::FILE* file_ = nullptr;

  void remove_temporary();  // unlinks tmp_path_ (if any) and forgets its note
};

}  // namespace nmt
