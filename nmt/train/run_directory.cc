#include "nmt/train/run_directory.h"

#include <cstdio>
#include <map>
#include <regex>
#include <set>

#include "nmt/core/error.h"
#include "nmt/core/file_io.h"
#include "nmt/core/verified_archive.h"

namespace nmt {
namespace fs = std::filesystem;
namespace {

// The step files in `directory` (.pt or .state), by step, ascending.
std::map<std::int64_t, std::string> step_files(const fs::path& directory) {
  static const std::regex pattern(R"(step-(\d{8,})\.(pt|state))");
  std::map<std::int64_t, std::string> found;
  std::error_code ec;
  for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::smatch match;
    if (std::regex_match(name, match, pattern)) found.emplace(std::stoll(match[1].str()), name);
  }
  return found;
}

}  // namespace

std::string step_stem(std::int64_t step) {
  char stem[32];
  std::snprintf(stem, sizeof stem, "step-%08lld", static_cast<long long>(step));
  return stem;
}

RunDirectory::RunDirectory(const std::string& path, bool resuming) : path_(path) {
  std::error_code ec;
  fs::create_directories(checkpoints(), ec);
  if (ec) throw IoError("cannot create run directory " + path + ": " + ec.message());
  // One trainer per run directory, before anything in it is read or written.
  lock_ = std::make_unique<LockFile>((path_ / "train.lock").string(), "run directory " + path);
  stale_ = remove_stale_temporaries(path_.string()) + remove_stale_temporaries(checkpoints().string());
  if (!resuming) check_for_another_run();
}

RunDirectory::~RunDirectory() = default;

std::string RunDirectory::checkpoint_path(const std::string& run_dir, std::int64_t step) {
  return (fs::path(run_dir) / "checkpoints" / (step_stem(step) + ".pt")).string();
}

std::string RunDirectory::checkpoint_path(std::int64_t step) const { return checkpoint_path(path_.string(), step); }

std::string RunDirectory::state_path(std::int64_t step) const {
  return (checkpoints() / (step_stem(step) + ".state")).string();
}

std::string RunDirectory::attention_dir(std::int64_t step) const {
  return (path_ / "attention" / step_stem(step)).string();
}

// A run directory holds one run. Without `latest`, step files or a best.pt belong to some other
// run (or one whose `latest` was removed): a new run would overwrite them and keep-last would
// delete them, so refuse and say what to do.
void RunDirectory::check_for_another_run() const {
  if (has_latest()) {
    throw ConfigError("run directory " + path_.string() +
                      " already holds a training run: resume it, or choose another run directory");
  }
  const auto steps = step_files(checkpoints());
  if (steps.empty() && !fs::exists(path_ / "best.pt")) return;
  const std::string example = steps.empty() ? "best.pt" : "checkpoints/" + steps.begin()->second;
  throw ConfigError("run directory " + path_.string() + " holds checkpoints of another run (" + example +
                    (steps.size() > 1 ? " and " + std::to_string(steps.size() - 1) + " more" : std::string()) +
                    ") but no checkpoints/latest: move them away, or choose another run directory");
}

bool RunDirectory::has_latest() const { return fs::exists(checkpoints() / "latest"); }

std::string RunDirectory::latest_stem_in(const std::string& run_dir) {
  const fs::path checkpoints = fs::path(run_dir) / "checkpoints";
  const fs::path latest = checkpoints / "latest";
  std::string stem = read_file(latest.string());
  while (!stem.empty() && (stem.back() == '\n' || stem.back() == '\r' || stem.back() == ' ')) stem.pop_back();
  static const std::regex pattern(R"(step-\d{8,})");
  if (!std::regex_match(stem, pattern)) {
    throw DataError(latest.string() + " does not name a checkpoint (expected step-NNNNNNNN, got '" +
                    stem.substr(0, 40) + "')");
  }
  if (!fs::exists(checkpoints / (stem + ".pt")) || !fs::exists(checkpoints / (stem + ".state"))) {
    throw DataError(latest.string() + " names " + stem + ", but " + stem + ".pt or " + stem + ".state is missing in " +
                    checkpoints.string());
  }
  return stem;
}

RunDirectory::Latest RunDirectory::read_latest() const {
  if (!has_latest()) {
    throw ConfigError("cannot resume: no checkpoint in " + checkpoints().string() + " (start without resuming)");
  }
  Latest latest;
  latest.stem = latest_stem();
  latest.checkpoint_bytes = read_archive_file((checkpoints() / (latest.stem + ".pt")).string(), "checkpoint");
  latest.state_bytes = read_archive_file((checkpoints() / (latest.stem + ".state")).string(), "training state");
  return latest;
}

void RunDirectory::set_latest(std::int64_t step) const {
  write_file_atomic((checkpoints() / "latest").string(), step_stem(step));
}

void RunDirectory::adopt_steps_up_to(std::int64_t step) {
  for (const auto& [found, name] : step_files(checkpoints())) {
    if (found <= step && (own_steps_.empty() || own_steps_.back() != found)) own_steps_.push_back(found);
  }
}

void RunDirectory::keep_last(std::int64_t step, std::int64_t keep_last, const std::set<std::int64_t>& also_keep) {
  if (own_steps_.empty() || own_steps_.back() != step) own_steps_.push_back(step);
  const std::size_t n = own_steps_.size();
  std::vector<std::int64_t> kept;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t s = own_steps_[i];
    if (i + static_cast<std::size_t>(keep_last) >= n || s == step || also_keep.count(s) > 0) {
      kept.push_back(s);
      continue;
    }
    std::error_code ec;
    fs::remove(checkpoints() / (step_stem(s) + ".state"), ec);
    fs::remove(checkpoints() / (step_stem(s) + ".pt"), ec);
  }
  own_steps_ = std::move(kept);
}

}  // namespace nmt
