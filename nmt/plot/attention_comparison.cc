#include "nmt/plot/attention_comparison.h"

#include <algorithm>
#include <filesystem>
#include <memory>

#include "nmt/core/error.h"
#include "nmt/core/log.h"
#include "nmt/plot/attention_matrix.h"
#include "nmt/plot/figure.h"

namespace nmt::plot {
namespace {

constexpr double kPanelGap = 18;  // points between heat-maps

AttentionMatrix read_line(const std::string& path, std::int64_t line) {
  std::vector<AttentionMatrix> all = read_attention_file(path, [line](std::int64_t l) { return l == line; });
  for (AttentionMatrix& m : all) {
    if (m.line != line) continue;
    if (m.target.empty()) {
      throw ConfigError("sentence: line " + std::to_string(line) + " of " + path + " has an empty translation");
    }
    return std::move(m);
  }
  throw ConfigError("sentence: line " + std::to_string(line) + " is not in " + path + " (" + std::to_string(all.size()) +
                    " lines)");
}

}  // namespace

std::vector<std::string> write_attention_comparison(const AttentionComparisonJob& job) {
  if (job.inputs.size() < 2) throw ConfigError("compare-attention: give at least two attention files");
  if (!job.labels.empty() && job.labels.size() != job.inputs.size()) {
    throw ConfigError("label: " + std::to_string(job.labels.size()) + " labels for " +
                      std::to_string(job.inputs.size()) + " files");
  }
  if (job.outputs.empty()) throw ConfigError("output: name at least one image file");
  if (job.columns < 0) throw ConfigError("columns must be >= 0, got " + std::to_string(job.columns));
  for (const std::string& output : job.outputs) image_format_of(output);  // before any work
  std::vector<std::unique_ptr<Figure>> panels;
  std::vector<std::string> first_source;
  for (std::size_t i = 0; i < job.inputs.size(); ++i) {
    AttentionMatrix m = read_line(job.inputs[i], job.line);
    if (i == 0) first_source = m.source;
    if (m.source != first_source) {
      throw ConfigError(job.inputs[i] + ": line " + std::to_string(job.line) + " has another source than " +
                        job.inputs[0] + "'s (the files must translate the same input)");
    }
    HeatmapOptions options = job.options;
    options.title = job.labels.empty() ? std::filesystem::path(job.inputs[i]).filename().string() : job.labels[i];
    panels.push_back(draw_attention_heatmap(job.merge_words ? merge_words(m) : m, options));
  }
  const std::size_t columns = job.columns > 0 ? static_cast<std::size_t>(job.columns) : std::min<std::size_t>(4, panels.size());
  // Rows of `columns` panels, each column as wide as its widest panel, each row as tall as its tallest.
  std::vector<double> widths(columns, 0), heights((panels.size() + columns - 1) / columns, 0);
  for (std::size_t i = 0; i < panels.size(); ++i) {
    widths[i % columns] = std::max(widths[i % columns], panels[i]->width());
    heights[i / columns] = std::max(heights[i / columns], panels[i]->height());
  }
  double width = kPanelGap, height = kPanelGap;
  for (const double w : widths) width += w + kPanelGap;
  for (const double h : heights) height += h + kPanelGap;
  if (std::max(width, height) > kMaxHeatmapPoints) {
    throw ConfigError("the comparison would be " + std::to_string(static_cast<long>(width)) + " x " +
                      std::to_string(static_cast<long>(height)) + " points: choose a shorter line, --words or fewer files");
  }
  Figure figure(width, height);
  double y = kPanelGap;
  for (std::size_t row = 0; row < heights.size(); ++row) {
    double x = kPanelGap;
    for (std::size_t column = 0; column < columns && row * columns + column < panels.size(); ++column) {
      panels[row * columns + column]->draw_onto(figure.context(), x, y);
      x += widths[column] + kPanelGap;
    }
    y += heights[row] + kPanelGap;
  }
  for (const std::string& output : job.outputs) figure.save(output);
  log().info("drew line {} of {} files into {}", job.line, job.inputs.size(), job.outputs.front());
  return job.outputs;
}

}  // namespace nmt::plot
