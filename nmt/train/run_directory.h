// A training run's directory (docs/training.md, "Run directory"): one run per directory, held by a
// lock; its step checkpoints named by step (checkpoints/step-00000500.pt and .state), `latest`
// naming the newest complete pair, and keep-last removing only the run's own older steps. The
// names of its files are RunLayout's (nmt/core/run_layout.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "nmt/core/lock_file.h"
#include "nmt/core/run_layout.h"

namespace nmt {

class RunDirectory {
 public:
  /// Claims `path` for one trainer: creates it and checkpoints/, takes train.lock (IoError naming
  /// the holder if another process has it) and removes temporary files that killed writers left.
  /// A new run (`resuming` false) refuses a directory holding another run's files: a `latest`
  /// ("resume it, or choose another run directory"), or step files or a best.pt without one.
  RunDirectory(const std::string& path, bool resuming);
  ~RunDirectory();

  const std::filesystem::path& path() const { return layout_.root(); }
  const RunLayout& layout() const { return layout_; }

  /// Temporary files removed when the directory was claimed.
  int stale_temporaries() const { return stale_; }

  bool has_latest() const;
  /// The stem `latest` names, checked: DataError naming `latest` when it names no step, or a step
  /// whose .pt or .state is missing.
  std::string latest_stem() const { return latest_stem_in(path().string()); }
  /// The same for any run directory, without claiming it (its `latest` must exist).
  static std::string latest_stem_in(const std::string& run_dir);
  /// What a resume reads: the checkpoint `latest` names and its training state, as bytes (checked as
  /// archives). ConfigError when there is no `latest` ("start without resuming"); as latest_stem.
  struct Latest {
    std::string stem, checkpoint_bytes, state_bytes;
  };
  Latest read_latest() const;
  /// Points `latest` at `step` (written atomically; the step's files must be complete).
  void set_latest(std::int64_t step) const;

  /// On resume: this run's step files up to `step` are its own (keep-last may remove them). Step
  /// files above it (written after `latest` was last set, by a process that then died) are left.
  void adopt_steps_up_to(std::int64_t step);
  /// Records `step` as written by this run, then removes this run's step files but the newest
  /// `keep_last`, `step` itself and the steps of `also_keep` (checkpoint.keep-best); never another
  /// run's files.
  void keep_last(std::int64_t step, std::int64_t keep_last, const std::set<std::int64_t>& also_keep = {});

 private:
  void check_for_another_run() const;

  RunLayout layout_;
  std::unique_ptr<LockFile> lock_;
  int stale_ = 0;
  std::vector<std::int64_t> own_steps_;  // step checkpoints this run wrote, oldest first
};

}  // namespace nmt
