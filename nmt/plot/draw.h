// What the pictures share, over cairo (internal: not installed, as it names cairo): the font,
// anchored and rotated text with real metrics, the shade scale of attention weights, the series
// colours and axis ticks.
#pragma once

#include <cairo.h>

#include <string>
#include <vector>

namespace nmt::plot {

/// DejaVu Sans (Debian's fonts-dejavu-core, installed by scripts/setup.sh) through fontconfig.
void set_font(cairo_t* cr, double size, bool bold = false);

enum class Anchor { start, middle, end };  // horizontal, along the text's own direction
enum class Baseline { top, middle, bottom };

/// Draws `text` with its anchor point at (x, y), rotated by `degrees` (counter-clockwise on the
/// page; 90: reading upwards). Uses the current font and colour.
void draw_text(cairo_t* cr, const std::string& text, double x, double y, Anchor anchor = Anchor::start,
               Baseline baseline = Baseline::bottom, double degrees = 0);

/// The advance width of `text` in the current font.
double text_width(cairo_t* cr, const std::string& text);

struct Rgb {
  double r, g, b;
};
void set_colour(cairo_t* cr, const Rgb& colour);

/// Every picture's margin around its drawing and the colour of its text and axes.
inline constexpr double kMargin = 12;
inline constexpr Rgb kInk{0.15, 0.15, 0.15};

/// The shade of an attention weight w in [0, 1]: white at 0 through light blue to dark navy at 1
/// (a sequential scale that prints in grey as well).
Rgb weight_shade(double w);

/// The colour of series i (a qualitative palette that stays distinct for colour-blind readers):
/// kSeriesColours colours, then again from the first.
inline constexpr std::size_t kSeriesColours = 7;
Rgb series_colour(std::size_t i);

/// About `count` round tick values ("nice numbers": 1, 2, 5 x 10^k steps) covering [low, high].
std::vector<double> nice_ticks(double low, double high, int count = 5);

/// A tick value as text: no trailing zeros, thousands as "k" and millions as "M" (12k, 1.5M).
std::string tick_label(double value);

}  // namespace nmt::plot
