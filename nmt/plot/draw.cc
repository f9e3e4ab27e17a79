#include "nmt/plot/draw.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace nmt::plot {

void set_font(cairo_t* cr, double size, bool bold) {
  cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
}

double text_width(cairo_t* cr, const std::string& text) {
  cairo_text_extents_t extents;
  cairo_text_extents(cr, text.c_str(), &extents);
  return extents.x_advance;
}

void draw_text(cairo_t* cr, const std::string& text, double x, double y, Anchor anchor, Baseline baseline,
               double degrees) {
  cairo_font_extents_t font;
  cairo_font_extents(cr, &font);
  const double width = text_width(cr, text);
  const double dx = anchor == Anchor::start ? 0 : anchor == Anchor::middle ? -width / 2 : -width;
  // Baselines from the font's ascent and descent (not the text's), so that labels line up.
  const double dy = baseline == Baseline::bottom ? -font.descent
                    : baseline == Baseline::top  ? font.ascent
                                                 : (font.ascent - font.descent) / 2;
  cairo_save(cr);
  cairo_translate(cr, x, y);
  cairo_rotate(cr, -degrees * M_PI / 180.0);
  cairo_move_to(cr, dx, dy);
  cairo_show_text(cr, text.c_str());
  cairo_restore(cr);
}

void set_colour(cairo_t* cr, const Rgb& colour) { cairo_set_source_rgb(cr, colour.r, colour.g, colour.b); }

Rgb weight_shade(double w) {
  // Stops of a white-to-navy scale (close to ColorBrewer's "Blues"), interpolated linearly.
  static constexpr std::array<Rgb, 6> stops = {{{1.000, 1.000, 1.000},
                                                {0.776, 0.859, 0.937},
                                                {0.420, 0.682, 0.839},
                                                {0.192, 0.510, 0.741},
                                                {0.031, 0.318, 0.612},
                                                {0.031, 0.149, 0.361}}};
  const double clamped = std::clamp(std::isfinite(w) ? w : 0.0, 0.0, 1.0) * (stops.size() - 1);
  const auto i = std::min(static_cast<std::size_t>(clamped), stops.size() - 2);
  const double f = clamped - static_cast<double>(i);
  const Rgb& a = stops[i];
  const Rgb& b = stops[i + 1];
  return {a.r + f * (b.r - a.r), a.g + f * (b.g - a.g), a.b + f * (b.b - a.b)};
}

Rgb series_colour(std::size_t i) {
  // Okabe and Ito's palette: blue, vermillion, bluish green, orange, reddish purple, sky blue, yellow.
  static constexpr std::array<Rgb, kSeriesColours> palette = {{{0.000, 0.447, 0.698},
                                                  {0.835, 0.369, 0.000},
                                                  {0.000, 0.620, 0.451},
                                                  {0.902, 0.624, 0.000},
                                                  {0.800, 0.475, 0.655},
                                                  {0.337, 0.706, 0.914},
                                                  {0.941, 0.894, 0.259}}};
  return palette[i % palette.size()];
}

std::vector<double> nice_ticks(double low, double high, int count) {
  if (!std::isfinite(low) || !std::isfinite(high)) return {};
  // A range below the numbers' own resolution has no ticks of its own: widen it.
  const double least = 1e-9 * std::max({std::abs(low), std::abs(high), 1e-300});
  if (!(high - low > least)) {
    low -= std::max(least, 0.5);
    high += std::max(least, 0.5);
  }
  const double raw = (high - low) / std::max(count, 1);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (const double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    step = m * magnitude;
    if (step >= raw) break;
  }
  // Counted by an integer index (v += step stalls where step is below v's rounding), at most 100.
  std::vector<double> ticks;
  const double first = std::ceil(low / step - 1e-9);
  for (int i = 0; i < 100; ++i) {
    const double v = (first + i) * step;
    if (v > high + step * 1e-9) break;
    ticks.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
  }
  return ticks;
}

std::string tick_label(double value) {
  const double magnitude = std::abs(value);
  const char* suffix = "";
  if (magnitude >= 1e6) {
    value /= 1e6;
    suffix = "M";
  } else if (magnitude >= 1e3) {
    value /= 1e3;
    suffix = "k";
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.3g%s", value, suffix);
  return text;
}

}  // namespace nmt::plot
