// The file names of a training run's directory, in one place for every reader and writer (the
// trainer, resume, --init-from, nmt-checkpoint average, nmt-plot's training curves):
//   RUN_DIR/config.toml, train.log, metrics.jsonl, best.pt, train.lock, attention/step-N/, curves.svg
//   RUN_DIR/checkpoints/step-N.pt, step-N.state, latest
// It lives in core, not in nmt/train, because readers below the training layer (nmt/plot) need
// it too; it only composes paths and touches no file (RunDirectory holds and changes a run).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace nmt {

/// "step-00000500": the stem of step 500's checkpoint and training state.
std::string step_stem(std::int64_t step);

class RunLayout {
 public:
  explicit RunLayout(const std::string& run_dir) : root_(run_dir) {}

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path config() const { return root_ / "config.toml"; }  // the effective configuration
  std::filesystem::path log() const { return root_ / "train.log"; }
  std::filesystem::path metrics() const { return root_ / "metrics.jsonl"; }  // TrainEvent, ValidEvent lines
  std::filesystem::path best() const { return root_ / "best.pt"; }  // the best validation's checkpoint
  std::filesystem::path lock() const { return root_ / "train.lock"; }
  /// curves.svg, curves.png: nmt-plot metrics' pictures of the run, by default.
  std::filesystem::path curves(const std::string& extension) const { return root_ / ("curves." + extension); }
  /// attention/step-N/: the heat-maps of step N's validation.
  std::filesystem::path attention(std::int64_t step) const { return root_ / "attention" / step_stem(step); }

  std::filesystem::path checkpoints() const { return root_ / "checkpoints"; }
  /// checkpoints/latest: names the stem of the newest complete checkpoint and state pair.
  std::filesystem::path latest() const { return checkpoints() / "latest"; }
  /// checkpoints/STEM.pt and STEM.state (a stem as `latest` names it) or those of a step.
  std::filesystem::path checkpoint(const std::string& stem) const { return checkpoints() / (stem + ".pt"); }
  std::filesystem::path state(const std::string& stem) const { return checkpoints() / (stem + ".state"); }
  std::filesystem::path checkpoint(std::int64_t step) const { return checkpoint(step_stem(step)); }
  std::filesystem::path state(std::int64_t step) const { return state(step_stem(step)); }

  /// The step a file name of checkpoints/ stands for: "step-N" + `extension` (".pt", ".state",
  /// or "" for a stem), N of 8 digits or more; nothing for any other name.
  static std::optional<std::int64_t> step_of(const std::string& file_name, const std::string& extension);

 private:
  std::filesystem::path root_;
};

}  // namespace nmt
