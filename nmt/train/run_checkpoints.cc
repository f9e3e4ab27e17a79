#include "nmt/train/run_checkpoints.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "nmt/core/error.h"
#include "nmt/core/run_layout.h"
#include "nmt/data/metrics_events.h"

namespace nmt {
namespace fs = std::filesystem;

std::vector<std::int64_t> best_steps(const std::vector<std::pair<std::int64_t, double>>& validations,
                                     ValidationMetric metric, std::size_t count) {
  std::map<std::int64_t, double> last_value;
  for (const auto& [step, value] : validations) last_value[step] = value;
  std::vector<std::pair<double, std::int64_t>> ranked;  // (higher is better, step)
  for (const auto& [step, value] : last_value) {
    if (std::isfinite(value)) ranked.emplace_back(metric == ValidationMetric::bleu ? value : -value, step);
  }
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a > b; });
  std::vector<std::int64_t> steps;
  for (std::size_t i = 0; i < ranked.size() && i < count; ++i) steps.push_back(ranked[i].second);
  return steps;
}

std::vector<std::string> choose_run_checkpoints(const std::string& run_dir, RunCheckpointChoice choice,
                                                std::int64_t count, ValidationMetric metric) {
  if (count < 1) throw ConfigError("the number of checkpoints to choose must be >= 1, got " + std::to_string(count));
  const RunLayout layout(run_dir);
  const fs::path checkpoints = layout.checkpoints();
  std::error_code ec;
  if (!fs::is_directory(checkpoints, ec)) {
    throw IoError("run directory " + run_dir + " has no checkpoints/ directory (not a run directory of nmt-train)");
  }
  std::vector<std::int64_t> steps;  // ascending
  for (fs::directory_iterator it(checkpoints, ec), end; !ec && it != end; it.increment(ec)) {
    const auto step = RunLayout::step_of(it->path().filename().string(), ".pt");
    if (step && it->is_regular_file()) steps.push_back(*step);
  }
  if (ec) throw IoError("cannot list " + checkpoints.string() + ": " + ec.message());
  std::sort(steps.begin(), steps.end());

  std::vector<std::int64_t> chosen;
  std::string what = "step checkpoints";
  if (choice == RunCheckpointChoice::last) {
    chosen.assign(steps.end() - std::min<std::ptrdiff_t>(count, static_cast<std::ptrdiff_t>(steps.size())), steps.end());
  } else {
    const std::string metrics = layout.metrics().string();
    std::vector<std::pair<std::int64_t, double>> validations;  // of the steps whose files exist
    for (const ValidEvent& v : read_metrics_events(metrics).valid) {
      if (std::binary_search(steps.begin(), steps.end(), v.step)) {
        validations.emplace_back(v.step, metric == ValidationMetric::bleu ? v.bleu : v.loss);
      }
    }
    chosen = best_steps(validations, metric, static_cast<std::size_t>(count));
    std::sort(chosen.begin(), chosen.end());
    what = "step checkpoints with a validation in " + metrics;
  }
  if (static_cast<std::int64_t>(chosen.size()) < count) {
    throw ConfigError("run directory " + run_dir + " has " + std::to_string(chosen.size()) + " " + what + ", fewer than " +
                      std::to_string(count) + " (checkpoint.keep-last and checkpoint.keep-best decide which a run keeps)");
  }
  std::vector<std::string> paths;
  for (const std::int64_t step : chosen) paths.push_back(layout.checkpoint(step).string());
  return paths;
}

}  // namespace nmt
