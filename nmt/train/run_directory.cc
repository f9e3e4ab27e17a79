#include "nmt/train/run_directory.h"

#include <map>
#include <set>

#include "nmt/core/error.h"
#include "nmt/core/file_io.h"
#include "nmt/core/verified_archive.h"

namespace nmt {
namespace fs = std::filesystem;
namespace {

// The step files in `directory` (.pt or .state), by step, ascending.
std::map<std::int64_t, std::string> step_files(const fs::path& directory) {
  std::map<std::int64_t, std::string> found;
  std::error_code ec;
  for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    auto step = RunLayout::step_of(name, ".pt");
    if (!step) step = RunLayout::step_of(name, ".state");
    if (step) found.emplace(*step, name);
  }
  return found;
}

}  // namespace

RunDirectory::RunDirectory(const std::string& path, bool resuming) : layout_(path) {
  std::error_code ec;
  fs::create_directories(layout_.checkpoints(), ec);
  if (ec) throw IoError("cannot create run directory " + path + ": " + ec.message());
  // One trainer per run directory, before anything in it is read or written.
  lock_ = std::make_unique<LockFile>(layout_.lock().string(), "run directory " + path);
  stale_ = remove_stale_temporaries(path) + remove_stale_temporaries(layout_.checkpoints().string());
  if (!resuming) check_for_another_run();
}

RunDirectory::~RunDirectory() = default;

// A run directory holds one run. Without `latest`, step files or a best.pt belong to some other
// run (or one whose `latest` was removed): a new run would overwrite them and keep-last would
// delete them, so refuse and say what to do.
void RunDirectory::check_for_another_run() const {
  if (has_latest()) {
    throw ConfigError("run directory " + path().string() +
                      " already holds a training run: resume it, or choose another run directory");
  }
  const auto steps = step_files(layout_.checkpoints());
  if (steps.empty() && !fs::exists(layout_.best())) return;
  const fs::path root = path();
  const std::string example = (steps.empty() ? layout_.best() : layout_.checkpoints() / steps.begin()->second)
                                  .lexically_relative(root).string();
  throw ConfigError("run directory " + root.string() + " holds checkpoints of another run (" + example +
                    (steps.size() > 1 ? " and " + std::to_string(steps.size() - 1) + " more" : std::string()) +
                    ") but no " + layout_.latest().lexically_relative(root).string() +
                    ": move them away, or choose another run directory");
}

bool RunDirectory::has_latest() const { return fs::exists(layout_.latest()); }

std::string RunDirectory::latest_stem_in(const std::string& run_dir) {
  const RunLayout layout(run_dir);
  const fs::path latest = layout.latest();
  std::string stem = read_file(latest.string());
  while (!stem.empty() && (stem.back() == '\n' || stem.back() == '\r' || stem.back() == ' ')) stem.pop_back();
  if (!RunLayout::step_of(stem, "")) {
    throw DataError(latest.string() + " does not name a checkpoint (expected step-NNNNNNNN, got '" +
                    stem.substr(0, 40) + "')");
  }
  if (!fs::exists(layout.checkpoint(stem)) || !fs::exists(layout.state(stem))) {
    throw DataError(latest.string() + " names " + stem + ", but " + stem + ".pt or " + stem + ".state is missing in " +
                    layout.checkpoints().string());
  }
  return stem;
}

RunDirectory::Latest RunDirectory::read_latest() const {
  if (!has_latest()) {
    throw ConfigError("cannot resume: no checkpoint in " + layout_.checkpoints().string() +
                      " (start without resuming)");
  }
  Latest latest;
  latest.stem = latest_stem();
  latest.checkpoint_bytes = read_archive_file(layout_.checkpoint(latest.stem).string(), "checkpoint");
  latest.state_bytes = read_archive_file(layout_.state(latest.stem).string(), "training state");
  return latest;
}

void RunDirectory::set_latest(std::int64_t step) const {
  write_file_atomic(layout_.latest().string(), step_stem(step));
}

void RunDirectory::adopt_steps_up_to(std::int64_t step) {
  for (const auto& [found, name] : step_files(layout_.checkpoints())) {
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
    fs::remove(layout_.state(s), ec);
    fs::remove(layout_.checkpoint(s), ec);
  }
  own_steps_ = std::move(kept);
}

}  // namespace nmt
