// One sentence's attention under several models, side by side: the heat-map of the same input line
// from each model's nmt-translate --attention-output, titled with the model's label, in a grid.
// What the attention study draws to show every kind of attention on one long verse
// (docs/attention.md, "The attention study").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nmt/plot/attention_heatmap.h"

namespace nmt::plot {

struct AttentionComparisonJob {
  std::vector<std::string> inputs;   // attention JSON lines, one file per model (at least 2)
  std::vector<std::string> labels;   // a title per input, in order; empty: the files' names
  std::int64_t line = 1;             // the input line (from 1) drawn from every file
  std::vector<std::string> outputs;  // image files (.svg, .png, .pdf), each written atomically
  std::int64_t columns = 0;          // heat-maps per row; 0: up to 4
  bool merge_words = false;
  HeatmapOptions options;            // each heat-map's; its title is the label
};

/// Reads every input first and checks that each has the line with a translation and that they
/// translated the same source (ConfigError naming the file otherwise); then draws and writes.
/// Returns the paths written.
std::vector<std::string> write_attention_comparison(const AttentionComparisonJob& job);

}  // namespace nmt::plot
