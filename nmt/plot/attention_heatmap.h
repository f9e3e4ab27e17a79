// Heat-maps of attention: one picture per sentence, source tokens across the top, target tokens
// down the left, each weight a shade (legend on the right) and each target token's hard alignment
// (its largest weight) outlined. What `nmt-plot attention` and training's validations draw.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nmt/plot/attention_matrix.h"
#include "nmt/plot/figure.h"

namespace nmt::plot {

/// The largest heat-map drawn: tokens on a side (after --words merging), and points on a side.
/// Larger ones are refused naming the line: cairo draws nothing, silently, far beyond them.
inline constexpr std::size_t kMaxHeatmapTokens = 1000;
inline constexpr double kMaxHeatmapPoints = 30000;


struct HeatmapOptions {
  double cell_size = 14;     // points per cell (a long sentence makes a larger picture, never smaller text)
  double font_size = 9;      // labels; the title is 2 points larger
  bool mark_alignment = true;
  std::string title;         // empty: "<name> N: S source x T target pieces (or words)"
  std::string name = "line";
};

/// The picture of one matrix. Throws DataError for a matrix without rows (an empty translation).
std::unique_ptr<Figure> draw_attention_heatmap(const AttentionMatrix& matrix, const HeatmapOptions& options = {});

struct HeatmapJob {
  std::string input;                  // nmt-translate --attention-output lines
  std::string output_dir;             // created if missing; files attention-NNNN.FORMAT (N: line, from 1)
  std::vector<ImageFormat> formats = {ImageFormat::svg, ImageFormat::png};
  std::vector<std::int64_t> lines;    // input lines to draw; empty: every line with a translation
  bool merge_words = false;           // pieces -> words (merge_words)
  HeatmapOptions options;
};

/// Reads and checks the whole input first (no picture is written from a bad file), then writes
/// each selected sentence's pictures, each atomically. Returns the paths written. Throws
/// ConfigError (a selected line that the file lacks or whose translation is empty, no format),
/// DataError (the input) or IoError (the folder or a file cannot be written).
std::vector<std::string> write_attention_heatmaps(const HeatmapJob& job);

/// Heat-maps of attention records held in memory (training's validation examples, numbered from 1
/// in `options.name`'s title): output_dir/attention-000N.FORMAT, each written atomically; records
/// without a translation are skipped. Returns the paths written. Throws as above.
std::vector<std::string> write_attention_heatmaps(const std::vector<AttentionRecord>& records,
                                                  const std::string& output_dir, const std::vector<ImageFormat>& formats,
                                                  const HeatmapOptions& options = {});

/// "attention-0012.svg": the file name of input line `line` (from 1) in `format`.
std::string heatmap_file_name(std::int64_t line, ImageFormat format);

}  // namespace nmt::plot
