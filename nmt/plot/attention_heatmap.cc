#include "nmt/plot/attention_heatmap.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <utility>
#include <system_error>

#include "nmt/core/error.h"
#include "nmt/core/log.h"
#include "nmt/plot/draw.h"

namespace nmt::plot {
namespace {

constexpr double kGap = 6;              // between labels and the grid
constexpr double kLegendWidth = 10;     // the colour bar
const Rgb kGridLine{0.85, 0.85, 0.85};
const Rgb kAlignment{0.902, 0.624, 0.000};  // orange: visible on white and on navy

double widest(cairo_t* cr, const std::vector<std::string>& labels) {
  double width = 0;
  for (const std::string& label : labels) width = std::max(width, text_width(cr, label));
  return width;
}

std::vector<std::string> shown_labels(const std::vector<std::string>& tokens, bool words) {
  std::vector<std::string> out;
  for (const std::string& token : tokens) out.push_back(words ? token : piece_label(token, true));
  return out;
}

// Where everything goes, in points.
struct HeatmapLayout {
  std::vector<std::string> columns, rows;  // source and target labels as shown
  std::string title;
  double cell = 0, font = 0;
  double grid_x = 0, grid_y = 0, grid_w = 0, grid_h = 0;
  double legend_x = 0, legend_h = 0;
  double width = 0, height = 0;
};

HeatmapLayout measure(const AttentionMatrix& m, const HeatmapOptions& options) {
  HeatmapLayout l;
  l.columns = shown_labels(m.source, m.words);
  l.rows = shown_labels(m.target, m.words);
  l.cell = options.cell_size;
  l.font = options.font_size;
  const std::string unit = m.words ? "words" : "pieces";
  l.title = !options.title.empty() ? options.title
                                   : options.name + " " + std::to_string(m.line) + ": " +
                                         std::to_string(l.columns.size()) + " source x " +
                                         std::to_string(l.rows.size()) + " target " + unit;
  // Measure with a scratch figure's context (the same font machinery as the real one).
  double row_label_width = 0, column_label_height = 0, title_width = 0;
  {
    Figure scratch(1, 1);
    cairo_t* cr = scratch.context();
    set_font(cr, l.font);
    row_label_width = widest(cr, l.rows);
    column_label_height = widest(cr, l.columns);
    set_font(cr, l.font + 2, true);
    title_width = text_width(cr, l.title);
  }
  l.grid_x = kMargin + row_label_width + kGap;
  l.grid_y = kMargin + (l.font + 2) * 1.6 + column_label_height + kGap;
  l.grid_w = l.cell * static_cast<double>(l.columns.size());
  l.grid_h = l.cell * static_cast<double>(l.rows.size());
  l.legend_x = l.grid_x + l.grid_w + 3 * kGap;
  l.legend_h = std::max(80.0, std::min(l.grid_h, 160.0));
  double legend_label_width = 0;
  {
    Figure scratch(1, 1);
    set_font(scratch.context(), l.font);
    legend_label_width = std::max(text_width(scratch.context(), "0.75"), text_width(scratch.context(), "hard alignment"));
  }
  l.width = std::max(l.legend_x + kLegendWidth + kGap + legend_label_width + kMargin, kMargin * 2 + title_width);
  l.height = std::max(l.grid_y + l.grid_h, l.grid_y + l.legend_h + 3 * l.font) + kMargin;
  return l;
}

// One filled rectangle per (target, source) position, and hair lines between cells, so that a row
// of near-zero weights can still be followed.
void draw_cells(cairo_t* cr, const AttentionMatrix& m, const HeatmapLayout& l) {
  for (std::size_t t = 0; t < l.rows.size(); ++t) {
    for (std::size_t j = 0; j < l.columns.size(); ++j) {
      set_colour(cr, weight_shade(m.weights[t][j]));
      cairo_rectangle(cr, l.grid_x + l.cell * static_cast<double>(j), l.grid_y + l.cell * static_cast<double>(t),
                      l.cell, l.cell);
      cairo_fill(cr);
    }
  }
  set_colour(cr, kGridLine);
  cairo_set_line_width(cr, 0.4);
  for (std::size_t j = 0; j <= l.columns.size(); ++j) {
    cairo_move_to(cr, l.grid_x + l.cell * static_cast<double>(j), l.grid_y);
    cairo_line_to(cr, l.grid_x + l.cell * static_cast<double>(j), l.grid_y + l.grid_h);
  }
  for (std::size_t t = 0; t <= l.rows.size(); ++t) {
    cairo_move_to(cr, l.grid_x, l.grid_y + l.cell * static_cast<double>(t));
    cairo_line_to(cr, l.grid_x + l.grid_w, l.grid_y + l.cell * static_cast<double>(t));
  }
  cairo_stroke(cr);
}

// Each target token's largest weight outlined.
void draw_hard_alignment(cairo_t* cr, const AttentionMatrix& m, const HeatmapLayout& l) {
  const std::vector<std::size_t> hard = m.hard_alignment();
  set_colour(cr, kAlignment);
  cairo_set_line_width(cr, 1.4);
  for (std::size_t t = 0; t < hard.size(); ++t) {
    const double inset = 1.2;
    cairo_rectangle(cr, l.grid_x + l.cell * static_cast<double>(hard[t]) + inset,
                    l.grid_y + l.cell * static_cast<double>(t) + inset, l.cell - 2 * inset, l.cell - 2 * inset);
  }
  cairo_stroke(cr);
}

// Target tokens right-aligned at the left, source tokens reading upwards above.
void draw_labels(cairo_t* cr, const HeatmapLayout& l) {
  set_colour(cr, kInk);
  set_font(cr, l.font);
  for (std::size_t t = 0; t < l.rows.size(); ++t) {
    draw_text(cr, l.rows[t], l.grid_x - kGap, l.grid_y + l.cell * (static_cast<double>(t) + 0.5), Anchor::end,
              Baseline::middle);
  }
  for (std::size_t j = 0; j < l.columns.size(); ++j) {
    draw_text(cr, l.columns[j], l.grid_x + l.cell * (static_cast<double>(j) + 0.5), l.grid_y - kGap, Anchor::start,
              Baseline::middle, 90);
  }
}

// The shade scale as one gradient, its ticks, and the alignment mark.
void draw_legend(cairo_t* cr, const HeatmapLayout& l, bool mark_alignment) {
  cairo_pattern_t* gradient = cairo_pattern_create_linear(0, l.grid_y + l.legend_h, 0, l.grid_y);
  for (int i = 0; i <= 10; ++i) {
    const Rgb c = weight_shade(i / 10.0);
    cairo_pattern_add_color_stop_rgb(gradient, i / 10.0, c.r, c.g, c.b);
  }
  cairo_rectangle(cr, l.legend_x, l.grid_y, kLegendWidth, l.legend_h);
  cairo_set_source(cr, gradient);
  cairo_fill_preserve(cr);
  cairo_pattern_destroy(gradient);
  set_colour(cr, kInk);
  cairo_set_line_width(cr, 0.6);
  cairo_stroke(cr);
  for (const double tick : {0.0, 0.25, 0.5, 0.75, 1.0}) {
    const double y = l.grid_y + l.legend_h * (1 - tick);
    cairo_move_to(cr, l.legend_x + kLegendWidth, y);
    cairo_line_to(cr, l.legend_x + kLegendWidth + 3, y);
    cairo_stroke(cr);
    draw_text(cr, tick_label(tick), l.legend_x + kLegendWidth + 5, y, Anchor::start, Baseline::middle);
  }
  if (mark_alignment) {
    const double y = l.grid_y + l.legend_h + 1.5 * l.font;
    set_colour(cr, kAlignment);
    cairo_set_line_width(cr, 1.4);
    cairo_rectangle(cr, l.legend_x, y - 4.5, 9, 9);
    cairo_stroke(cr);
    set_colour(cr, kInk);
    draw_text(cr, "hard alignment", l.legend_x + 13, y, Anchor::start, Baseline::middle);
  }
}

}  // namespace

std::string heatmap_file_name(std::int64_t line, ImageFormat format) {
  char name[64];
  std::snprintf(name, sizeof name, "attention-%04lld.%s", static_cast<long long>(line), name_of(format).c_str());
  return name;
}

std::unique_ptr<Figure> draw_attention_heatmap(const AttentionMatrix& m, const HeatmapOptions& options) {
  if (m.weights.empty() || m.source.empty()) {
    throw DataError("line " + std::to_string(m.line) + ": an empty translation has no attention to draw");
  }
  bool shaped = m.weights.size() == m.target.size();
  for (const auto& row : m.weights) shaped = shaped && row.size() == m.source.size();
  if (!shaped) {
    throw DataError("line " + std::to_string(m.line) + ": the weights are not " + std::to_string(m.target.size()) +
                    " target x " + std::to_string(m.source.size()) + " source tokens");
  }
  // Beyond these cairo's coordinates (24.8 fixed point) overflow and it draws nothing without an
  // error: a 700,000-piece sentence once gave a blank SVG and exit status 0.
  const std::size_t longest = std::max(m.source.size(), m.target.size());
  if (longest > kMaxHeatmapTokens) {
    throw DataError("line " + std::to_string(m.line) + ": " + std::to_string(m.source.size()) + " source x " +
                    std::to_string(m.target.size()) + " target tokens; a heat-map shows at most " +
                    std::to_string(kMaxHeatmapTokens) + " a side (choose shorter sentences with --sentences)");
  }
  const HeatmapLayout layout = measure(m, options);
  if (!(layout.width <= kMaxHeatmapPoints && layout.height <= kMaxHeatmapPoints)) {
    throw DataError("line " + std::to_string(m.line) + ": the picture would be " +
                    std::to_string(static_cast<long long>(layout.width)) + " x " +
                    std::to_string(static_cast<long long>(layout.height)) + " points, more than the " +
                    std::to_string(static_cast<long long>(kMaxHeatmapPoints)) +
                    " a side a picture may have (very long tokens, a long --title, or --cell-size)");
  }
  auto figure = std::make_unique<Figure>(layout.width, layout.height);
  cairo_t* cr = figure->context();
  set_colour(cr, kInk);
  set_font(cr, layout.font + 2, true);
  draw_text(cr, layout.title, kMargin, kMargin, Anchor::start, Baseline::top);
  draw_cells(cr, m, layout);
  if (options.mark_alignment) draw_hard_alignment(cr, m, layout);
  draw_labels(cr, layout);
  draw_legend(cr, layout, options.mark_alignment);
  return figure;
}

namespace {

std::vector<std::string> write_pictures(const std::vector<const AttentionMatrix*>& chosen, const std::string& output_dir,
                                        const std::vector<ImageFormat>& formats, bool merge, const HeatmapOptions& options) {
  if (formats.empty()) throw ConfigError("format: name at least one of svg, png, pdf");
  // Drawn before the folder is made: a picture that cannot be drawn leaves nothing behind.
  std::vector<std::pair<std::int64_t, std::unique_ptr<Figure>>> figures;
  for (const AttentionMatrix* m : chosen) figures.emplace_back(m->line, draw_attention_heatmap(merge ? merge_words(*m) : *m, options));
  std::error_code error;
  std::filesystem::create_directories(output_dir, error);
  if (error || !std::filesystem::is_directory(output_dir)) {
    throw IoError("cannot make the output folder " + output_dir + ": " +
                  (error ? error.message() : "a file of that name exists"));
  }
  std::vector<std::string> written;
  for (const auto& [line, figure] : figures) {
    for (const ImageFormat format : formats) {
      const std::string path = (std::filesystem::path(output_dir) / heatmap_file_name(line, format)).string();
      figure->save(path);
      written.push_back(path);
    }
  }
  return written;
}

}  // namespace

std::vector<std::string> write_attention_heatmaps(const HeatmapJob& job) {
  if (!(job.options.cell_size >= 4 && job.options.cell_size <= 100)) {
    throw ConfigError("cell-size must be in [4, 100] points, got " + std::to_string(job.options.cell_size));
  }
  // Every line is checked before anything is drawn; only the chosen lines' weights are kept.
  const std::set<std::int64_t> picked(job.lines.begin(), job.lines.end());
  const std::vector<AttentionMatrix> all = read_attention_file(
      job.input, picked.empty() ? std::function<bool(std::int64_t)>() : [&](std::int64_t line) { return picked.count(line) > 0; });
  std::map<std::int64_t, const AttentionMatrix*> by_line;
  for (const AttentionMatrix& m : all) by_line[m.line] = &m;
  std::vector<const AttentionMatrix*> chosen;
  if (job.lines.empty()) {
    for (const AttentionMatrix& m : all) {
      if (!m.target.empty()) chosen.push_back(&m);
    }
    if (chosen.empty()) throw DataError(job.input + ": no line has a translation to draw");
  }
  for (const std::int64_t line : picked) {
    const auto found = by_line.find(line);
    if (found == by_line.end()) {
      throw ConfigError("sentences: line " + std::to_string(line) + " is not in " + job.input + " (" +
                        std::to_string(all.size()) + " lines)");
    }
    if (found->second->target.empty()) {
      throw ConfigError("sentences: line " + std::to_string(line) + " of " + job.input + " has an empty translation");
    }
    chosen.push_back(found->second);
  }
  std::vector<std::string> written = write_pictures(chosen, job.output_dir, job.formats, job.merge_words, job.options);
  log().info("wrote {} picture(s) of {} sentence(s) to {}", written.size(), chosen.size(), job.output_dir);
  return written;
}

std::vector<std::string> write_attention_heatmaps(const std::vector<AttentionRecord>& records,
                                                  const std::string& output_dir, const std::vector<ImageFormat>& formats,
                                                  const HeatmapOptions& options) {
  std::vector<AttentionMatrix> all;
  for (std::size_t i = 0; i < records.size(); ++i) {
    AttentionMatrix m;
    static_cast<AttentionRecord&>(m) = records[i];
    m.line = static_cast<std::int64_t>(i + 1);
    m.check("attention of example " + std::to_string(i + 1));  // as a file's lines are
    all.push_back(std::move(m));
  }
  std::vector<const AttentionMatrix*> chosen;
  for (const AttentionMatrix& m : all) {
    if (!m.target.empty()) chosen.push_back(&m);
  }
  return write_pictures(chosen, output_dir, formats, /*merge_words=*/false, options);
}

}  // namespace nmt::plot
