#include "nmt/plot/training_curves.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include "nmt/core/error.h"
#include "nmt/core/text_list.h"
#include "nmt/core/log.h"
#include "nmt/core/run_layout.h"
#include "nmt/data/metrics_events.h"
#include "nmt/plot/line_chart.h"

namespace nmt::plot {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double tokens_of(const std::optional<std::int64_t>& tokens) {
  return tokens ? static_cast<double>(*tokens) : kNaN;
}

}  // namespace

RunMetrics read_run_metrics(const std::string& run_dir, const std::string& label) {
  const std::string path = RunLayout(run_dir).metrics().string();
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    throw IoError("cannot open " + path + " (is " + run_dir + " a run directory?)");
  }
  const MetricsHistory history = read_metrics_events(path);
  if (history.skipped_lines > 0) {
    log().warn("{}: skipped {} line(s) that are not JSON (cut short by a killed run?)", path, history.skipped_lines);
  }
  if (history.train.empty() && history.valid.empty()) throw DataError(path + ": no train or valid events yet");
  RunMetrics run{label, {}, {}};
  // Runs of nmt 0.1 before target tokens were logged: their token panels stay empty.
  for (const TrainEvent& e : history.train) {
    run.train.push_back({static_cast<double>(e.step), e.loss, e.ppl, tokens_of(e.target_tokens), kNaN});
  }
  for (const ValidEvent& e : history.valid) {
    run.valid.push_back({static_cast<double>(e.step), e.loss, e.ppl, tokens_of(e.target_tokens), e.bleu});
  }
  return run;
}

std::unique_ptr<Figure> draw_training_curves(const std::vector<RunMetrics>& runs) {
  if (runs.empty()) throw ConfigError("metrics: name at least one run directory");
  std::vector<Panel> panels;
  // Runs from before target tokens were logged have only the step row.
  bool any_tokens = false;
  for (const RunMetrics& run : runs) {
    for (const auto* points : {&run.train, &run.valid}) {
      for (const MetricPoint& p : *points) any_tokens = any_tokens || std::isfinite(p.target_tokens);
    }
  }
  for (const bool tokens : {false, true}) {
    if (tokens && !any_tokens) break;
    const std::string x_label = tokens ? "target tokens seen" : "step";
    const Axis x{x_label, false, /*include_zero=*/true, {}};
    Panel loss{"loss per target token", x, {"loss", false, false, {}}, {}};
    Panel ppl{"perplexity", x, {"perplexity (log scale)", true, false, {}}, {}};
    Panel bleu{"dev BLEU", x, {"BLEU", false, true, {}}, {}};
    for (const RunMetrics& run : runs) {
      const auto series = [&](const std::vector<MetricPoint>& points, double MetricPoint::*field, bool dev) {
        Series s;
        s.label = runs.size() == 1 ? (dev ? "dev" : "training") : run.label + (dev ? ": dev" : ": training");
        s.group = run.label;  // one colour per run; dev dashed
        s.dashed = dev;
        for (const MetricPoint& p : points) {
          s.x.push_back(tokens ? p.target_tokens : p.step);
          s.y.push_back(p.*field);
        }
        return s;
      };
      loss.series.push_back(series(run.train, &MetricPoint::loss, false));
      loss.series.push_back(series(run.valid, &MetricPoint::loss, true));
      ppl.series.push_back(series(run.train, &MetricPoint::ppl, false));
      ppl.series.push_back(series(run.valid, &MetricPoint::ppl, true));
      bleu.series.push_back(series(run.valid, &MetricPoint::bleu, true));
    }
    panels.push_back(std::move(loss));
    panels.push_back(std::move(ppl));
    panels.push_back(std::move(bleu));
  }
  ChartLayout layout;
  layout.title = "training curves";
  if (runs.size() == 1) layout.title += ": " + runs.front().label;
  return draw_panels(panels, layout);
}

std::vector<std::string> write_training_curves(const TrainingCurvesJob& job) {
  if (job.run_dirs.empty()) throw ConfigError("metrics: name at least one run directory");
  require_distinct(job.labels, "label");  // a label names one run in the legend
  if (!job.labels.empty() && job.labels.size() != job.run_dirs.size()) {
    throw ConfigError("label: " + std::to_string(job.labels.size()) + " labels for " +
                      std::to_string(job.run_dirs.size()) + " run directories");
  }
  std::vector<std::string> outputs = job.outputs;
  if (outputs.empty()) {
    if (job.run_dirs.size() > 1) throw ConfigError("output: name the image files (-o) when comparing runs");
    for (const char* extension : {"svg", "png"}) {
      outputs.push_back(RunLayout(job.run_dirs.front()).curves(extension).string());
    }
  }
  for (const std::string& path : outputs) image_format_of(path);  // a bad name fails before any work
  // Default labels: the directories' names, or their paths where two names are the same.
  std::vector<std::string> labels = job.labels;
  if (labels.empty()) {
    for (const std::string& dir : job.run_dirs) {
      const std::string name = std::filesystem::path(dir).lexically_normal().filename().string();
      labels.push_back(name.empty() || name == "." || name == ".." ? dir : name);
    }
    for (std::size_t i = 0; i < labels.size(); ++i) {
      if (std::count(labels.begin(), labels.end(), labels[i]) > 1) labels = job.run_dirs;
    }
  }
  std::vector<RunMetrics> runs;
  for (std::size_t i = 0; i < job.run_dirs.size(); ++i) runs.push_back(read_run_metrics(job.run_dirs[i], labels[i]));
  const auto figure = draw_training_curves(runs);
  for (const std::string& path : outputs) figure->save(path);
  log().info("wrote the training curves of {} run(s) to {}", runs.size(), outputs.front());
  return outputs;
}

}  // namespace nmt::plot
