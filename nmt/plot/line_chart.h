// Line charts: panels of curves in a grid with one legend, for the training curves (nmt-plot
// metrics) and the scores by sentence length (nmt-score --by-length --plot).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "nmt/plot/figure.h"

namespace nmt::plot {

struct Series {
  std::string label;      // in the legend (once per distinct label and dash)
  std::string group;      // series of one group share a colour (empty: the label is the group)
  std::vector<double> x;  // a NaN y leaves a gap (no point, the line broken)
  std::vector<double> y;
  bool dashed = false;    // e.g. dev curves beside training curves
};

struct Axis {
  std::string label;
  bool log_scale = false;                   // y only: powers of ten, ticks 1, 2, 5 x 10^k
  bool include_zero = false;                // the range reaches 0 (numeric axes)
  std::vector<std::string> categories;      // x only: ticks at x = 0, 1, ... named by these ('\n': lines)
};

struct Panel {
  std::string title;
  Axis x, y;
  std::vector<Series> series;
};

struct ChartLayout {
  std::string title;
  std::size_t columns = 3;     // panels per row
  double panel_width = 260;    // points
  double panel_height = 200;
};

/// The panels left to right, top to bottom, and a legend of every distinct series label below.
/// A panel without finite points says "no data". Throws ConfigError for no panels.
std::unique_ptr<Figure> draw_panels(const std::vector<Panel>& panels, const ChartLayout& layout);

}  // namespace nmt::plot
