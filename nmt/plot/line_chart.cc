#include "nmt/plot/line_chart.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "nmt/core/error.h"
#include "nmt/plot/draw.h"

namespace nmt::plot {
namespace {

constexpr double kFont = 9;
const Rgb kGrid{0.90, 0.90, 0.90};

struct Range {
  double low = std::numeric_limits<double>::infinity();
  double high = -std::numeric_limits<double>::infinity();
  void add(double v) {
    if (!std::isfinite(v)) return;
    low = std::min(low, v);
    high = std::max(high, v);
  }
  bool empty() const { return !(low <= high); }
};

// Ticks 1, 2, 5 x 10^k (fewer when the range spans many decades) within [low, high] of log10 values.
std::vector<double> log_ticks(double low, double high) {
  std::vector<double> ticks;
  const double decades = high - low;
  const std::vector<double> mantissas = decades > 3 ? std::vector<double>{1} : std::vector<double>{1, 2, 5};
  for (int k = static_cast<int>(std::floor(low)); k <= static_cast<int>(std::ceil(high)); ++k) {
    for (const double m : mantissas) {
      const double v = std::log10(m) + k;
      if (v >= low - 1e-9 && v <= high + 1e-9) ticks.push_back(v);
    }
  }
  return ticks;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    lines.push_back(text.substr(start, end - start));
  }
  lines.push_back(text.substr(start));
  return lines;
}

std::string joined(const std::string& text) {
  std::string out;
  for (const std::string& line : split_lines(text)) out += (out.empty() ? "" : " ") + line;
  return out;
}

class PanelPainter {
 public:
  PanelPainter(cairo_t* cr, const Panel& panel, double x, double y, double width, double height,
               const std::map<std::string, std::size_t>& colours)
      : cr_(cr), panel_(panel), colours_(colours) {
    left_ = x + 44;
    right_ = x + width - 10;
    top_ = y + 22;
    // The tick labels' block under the frame: one line of numbers, or the categories' lines
    // (split at '\n'), turned by 45 degrees (on one line) when they would not fit their slots.
    set_font(cr, kFont);
    double block = kFont * 1.3;
    if (!panel.x.categories.empty()) {
      std::size_t lines = 1;
      double widest = 0, widest_joined = 0;
      for (const std::string& name : panel.x.categories) {
        lines = std::max(lines, split_lines(name).size());
        for (const std::string& line : split_lines(name)) widest = std::max(widest, text_width(cr, line));
        widest_joined = std::max(widest_joined, text_width(cr, joined(name)));
      }
      turn_ = widest > (right_ - left_) / static_cast<double>(panel.x.categories.size()) - 4;
      block = turn_ ? widest_joined * 0.71 + kFont : static_cast<double>(lines) * kFont * 1.25;
    }
    bottom_ = y + height - (8 + block + kFont * 1.8);
    x_label_y_ = bottom_ + 4 + block + kFont * 1.5;
    for (const Series& s : panel.series) {
      for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
        if (!std::isfinite(s.y[i]) || !std::isfinite(s.x[i])) continue;
        if (panel.y.log_scale && s.y[i] <= 0) continue;
        xs_.add(s.x[i]);
        ys_.add(panel.y.log_scale ? std::log10(s.y[i]) : s.y[i]);
      }
    }
    if (!panel.x.categories.empty()) {
      xs_.add(-0.5);
      xs_.add(static_cast<double>(panel.x.categories.size()) - 0.5);
    }
    title_x_ = x + width / 2;
    title_y_ = y + 4;
  }

  void paint() {
    set_colour(cr_, kInk);
    set_font(cr_, kFont + 1, true);
    draw_text(cr_, panel_.title, title_x_, title_y_, Anchor::middle, Baseline::top);
    set_font(cr_, kFont);
    if (ys_.empty() || xs_.empty()) {
      draw_text(cr_, "no data", (left_ + right_) / 2, (top_ + bottom_) / 2, Anchor::middle, Baseline::middle);
      frame();
      return;
    }
    scale();
    grid_and_ticks();
    for (const Series& s : panel_.series) curve(s);
    frame();
  }

 private:
  void scale() {
    if (panel_.y.include_zero && !panel_.y.log_scale) ys_.add(0);
    double pad = (ys_.high - ys_.low) * 0.06;
    // A flat curve (or one flat to the last bits): a band around it.
    if (!(pad > 1e-9 * std::max(std::abs(ys_.high), std::abs(ys_.low)))) pad = std::max(std::abs(ys_.high) * 0.1, 1e-3);
    y_low_ = ys_.low - pad;
    y_high_ = ys_.high + pad;
    if (panel_.y.include_zero && ys_.low >= 0 && !panel_.y.log_scale) y_low_ = 0;
    if (panel_.x.include_zero && panel_.x.categories.empty()) xs_.add(0);
    x_low_ = xs_.low;
    x_high_ = xs_.high;
    if (x_high_ == x_low_) {
      x_low_ -= 1;
      x_high_ += 1;
    }
    // Room for the last marker inside the frame (categories have their half slot already).
    if (panel_.x.categories.empty()) x_high_ += (x_high_ - x_low_) * 0.03;
  }
  double px(double x) const { return left_ + (x - x_low_) / (x_high_ - x_low_) * (right_ - left_); }
  double py(double y) const {
    const double v = panel_.y.log_scale ? std::log10(y) : y;
    return bottom_ - (v - y_low_) / (y_high_ - y_low_) * (bottom_ - top_);
  }

  void grid_and_ticks() {
    set_font(cr_, kFont);
    cairo_set_line_width(cr_, 0.5);
    const std::vector<double> y_ticks = panel_.y.log_scale ? log_ticks(y_low_, y_high_) : nice_ticks(y_low_, y_high_);
    for (const double tick : y_ticks) {
      const double y = bottom_ - (tick - y_low_) / (y_high_ - y_low_) * (bottom_ - top_);
      if (y < top_ - 0.5 || y > bottom_ + 0.5) continue;
      set_colour(cr_, kGrid);
      cairo_move_to(cr_, left_, y);
      cairo_line_to(cr_, right_, y);
      cairo_stroke(cr_);
      set_colour(cr_, kInk);
      draw_text(cr_, tick_label(panel_.y.log_scale ? std::pow(10.0, tick) : tick), left_ - 4, y, Anchor::end,
                Baseline::middle);
    }
    if (!panel_.x.categories.empty()) {
      for (std::size_t i = 0; i < panel_.x.categories.size(); ++i) {
        const double x = px(static_cast<double>(i));
        if (turn_) {
          draw_text(cr_, joined(panel_.x.categories[i]), x + 3, bottom_ + 4, Anchor::end, Baseline::middle, 45);
          continue;
        }
        const std::vector<std::string> lines = split_lines(panel_.x.categories[i]);
        for (std::size_t l = 0; l < lines.size(); ++l) {
          draw_text(cr_, lines[l], x, bottom_ + 4 + static_cast<double>(l) * kFont * 1.25, Anchor::middle, Baseline::top);
        }
      }
    } else {
      for (const double tick : nice_ticks(x_low_, x_high_)) {
        const double x = px(tick);
        if (x < left_ - 0.5 || x > right_ + 0.5) continue;
        set_colour(cr_, kInk);
        cairo_move_to(cr_, x, bottom_);
        cairo_line_to(cr_, x, bottom_ + 3);
        cairo_stroke(cr_);
        draw_text(cr_, tick_label(tick), x, bottom_ + 4, Anchor::middle, Baseline::top);
      }
    }
    set_colour(cr_, kInk);
    draw_text(cr_, panel_.x.label, (left_ + right_) / 2, x_label_y_, Anchor::middle, Baseline::bottom);
    draw_text(cr_, panel_.y.label, left_ - 36, (top_ + bottom_) / 2, Anchor::middle, Baseline::middle, 90);
  }

  void curve(const Series& s) {
    const auto found = colours_.find(s.group.empty() ? s.label : s.group);
    set_colour(cr_, series_colour(found == colours_.end() ? 0 : found->second));
    cairo_save(cr_);
    cairo_rectangle(cr_, left_, top_, right_ - left_, bottom_ - top_);
    cairo_clip(cr_);
    cairo_set_line_width(cr_, 1.6);
    if (s.dashed) {
      const double dashes[] = {5.0, 3.0};
      cairo_set_dash(cr_, dashes, 2, 0);
    }
    bool drawing = false;
    std::size_t points = 0;
    const auto usable = [&](std::size_t i) {
      return std::isfinite(s.x[i]) && std::isfinite(s.y[i]) && (!panel_.y.log_scale || s.y[i] > 0);
    };
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!usable(i)) {
        drawing = false;
        continue;
      }
      ++points;
      if (drawing) {
        cairo_line_to(cr_, px(s.x[i]), py(s.y[i]));
      } else {
        cairo_move_to(cr_, px(s.x[i]), py(s.y[i]));
        drawing = true;
      }
    }
    cairo_stroke(cr_);
    cairo_set_dash(cr_, nullptr, 0, 0);
    if (points <= 40) {  // markers where points are few enough to tell apart
      for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
        if (!usable(i)) continue;
        cairo_arc(cr_, px(s.x[i]), py(s.y[i]), 2.6, 0, 2 * M_PI);
        cairo_fill(cr_);
      }
    }
    cairo_restore(cr_);
  }

  void frame() {
    set_colour(cr_, kInk);
    cairo_set_line_width(cr_, 0.8);
    cairo_rectangle(cr_, left_, top_, right_ - left_, bottom_ - top_);
    cairo_stroke(cr_);
  }

  cairo_t* cr_;
  const Panel& panel_;
  const std::map<std::string, std::size_t>& colours_;
  double left_, right_, top_, bottom_, title_x_, title_y_, x_label_y_ = 0;
  bool turn_ = false;
  Range xs_, ys_;
  double x_low_ = 0, x_high_ = 1, y_low_ = 0, y_high_ = 1;
};

}  // namespace

std::unique_ptr<Figure> draw_panels(const std::vector<Panel>& panels, const ChartLayout& layout) {
  if (panels.empty()) throw ConfigError("a chart needs at least one panel");
  // One colour per group, in order of appearance; the legend lists each label once with its dash.
  std::map<std::string, std::size_t> colours;
  struct Entry {
    std::string label, group;
    bool dashed;
  };
  std::vector<Entry> legend;
  for (const Panel& panel : panels) {
    for (const Series& s : panel.series) {
      const std::string& group = s.group.empty() ? s.label : s.group;
      colours.emplace(group, colours.size());
      const bool listed = std::any_of(legend.begin(), legend.end(), [&](const Entry& e) {
        return e.label == s.label && e.dashed == s.dashed;
      });
      if (!listed) legend.push_back({s.label, group, s.dashed});
    }
  }
  const std::size_t columns = std::max<std::size_t>(1, std::min(layout.columns, panels.size()));
  const std::size_t rows = (panels.size() + columns - 1) / columns;
  const double title_height = layout.title.empty() ? 0 : 22;
  const double chart_width = static_cast<double>(columns) * layout.panel_width;

  // Legend entries flow left to right and wrap at the chart's width.
  std::vector<std::pair<double, double>> legend_at;
  double legend_height = 0;
  {
    Figure scratch(1, 1);
    set_font(scratch.context(), kFont);
    double x = 0, line = 0;
    for (const auto& entry : legend) {
      const double w = 26 + text_width(scratch.context(), entry.label) + 16;
      if (x > 0 && x + w > chart_width) {
        x = 0;
        line += 1;
      }
      legend_at.emplace_back(x, line);
      x += w;
    }
    legend_height = legend.empty() ? 0 : (line + 1) * 16 + 6;
  }
  auto figure = std::make_unique<Figure>(chart_width + 2 * kMargin,
                                         kMargin + title_height + static_cast<double>(rows) * layout.panel_height +
                                             legend_height + kMargin);
  cairo_t* cr = figure->context();
  if (!layout.title.empty()) {
    set_colour(cr, kInk);
    set_font(cr, kFont + 3, true);
    draw_text(cr, layout.title, kMargin, kMargin, Anchor::start, Baseline::top);
  }
  for (std::size_t i = 0; i < panels.size(); ++i) {
    const double x = kMargin + static_cast<double>(i % columns) * layout.panel_width;
    const double y = kMargin + title_height + static_cast<double>(i / columns) * layout.panel_height;
    PanelPainter(cr, panels[i], x, y, layout.panel_width, layout.panel_height, colours).paint();
  }
  const double legend_top = kMargin + title_height + static_cast<double>(rows) * layout.panel_height + 4;
  set_font(cr, kFont);
  for (std::size_t i = 0; i < legend.size(); ++i) {
    const double x = kMargin + 44 + legend_at[i].first, y = legend_top + legend_at[i].second * 16 + 6;
    set_colour(cr, series_colour(colours[legend[i].group]));
    cairo_set_line_width(cr, 1.6);
    if (legend[i].dashed) {
      const double dashes[] = {5.0, 3.0};
      cairo_set_dash(cr, dashes, 2, 0);
    }
    cairo_move_to(cr, x, y);
    cairo_line_to(cr, x + 20, y);
    cairo_stroke(cr);
    cairo_set_dash(cr, nullptr, 0, 0);
    set_colour(cr, kInk);
    draw_text(cr, legend[i].label, x + 26, y, Anchor::start, Baseline::middle);
  }
  return figure;
}

}  // namespace nmt::plot
