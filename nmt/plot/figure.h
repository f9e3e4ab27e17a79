// A drawing made once and written as SVG, PNG or PDF: cairo records it and replays it onto the
// surface of each format, so every format comes from one code path with the same font metrics
// (docs/attention.md, "The pictures"). Cairo stays out of this header (installed headers name no
// private dependency); the drawing code includes nmt/plot/draw.h.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "nmt/core/enum_names.h"

struct _cairo;  // cairo_t

namespace nmt::plot {

enum class ImageFormat { svg, png, pdf };
const EnumNames<ImageFormat>& enum_names(ImageFormat);  // svg, png, pdf (lower case: the extensions)

/// The format a path's extension names (.svg, .png, .pdf; any case). Throws ConfigError naming the
/// path otherwise.
ImageFormat image_format_of(const std::string& path);
/// "svg,png" -> {svg, png} (names in any case). ConfigError naming `option` (when not empty) for an
/// unknown or repeated name, or none.
std::vector<ImageFormat> parse_image_formats(const std::string& list, const std::string& option);

/// The image formats an option chooses: "svg,png", or "none" for no pictures at all.
struct ImageFormatChoice {
  std::vector<ImageFormat> formats;  // in the order named; empty: none
  /// "none" or a list for parse_image_formats (ConfigError naming `option`).
  static ImageFormatChoice parse(const std::string& text, const std::string& option);
  std::string text() const;  // "svg,png", or "none"
  bool none() const { return formats.empty(); }
};

class Figure {
 public:
  /// width x height in points (1/72 inch); a white background.
  Figure(double width, double height);
  ~Figure();
  Figure(const Figure&) = delete;
  Figure& operator=(const Figure&) = delete;

  _cairo* context() const;  // draw here, in points
  double width() const { return width_; }
  double height() const { return height_; }

  /// Writes the drawing to `path` in the format of its extension, atomically (write_file_atomic: a
  /// temporary file renamed into place, so a failure never leaves a partial image). PNG has
  /// `png_pixels_per_point` pixels per point, fewer when a side would pass 8192 pixels. Throws
  /// IoError (the path and why) or ConfigError.
  void save(const std::string& path, double png_pixels_per_point = 2.0) const;

  /// The image bytes in `format` (what save writes).
  std::string encode(ImageFormat format, double png_pixels_per_point = 2.0) const;

  /// Replays this drawing onto another figure's context with its top left corner at (x, y), as
  /// vectors (a figure made of figures stays sharp in SVG and PDF).
  void draw_onto(_cairo* target, double x, double y) const;

 private:
  double width_, height_;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nmt::plot
