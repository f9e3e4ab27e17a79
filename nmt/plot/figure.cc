#include "nmt/plot/figure.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>

#include "nmt/core/error.h"
#include "nmt/core/file_io.h"
#include "nmt/core/text_list.h"

namespace nmt::plot {

namespace {

// svg, png or pdf, in any case; nothing for another name.
std::optional<ImageFormat> format_named(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return enum_names(ImageFormat{}).find(name);
}

}  // namespace

const EnumNames<ImageFormat>& enum_names(ImageFormat) {
  static const EnumNames<ImageFormat> names("image format",
                                            {{ImageFormat::svg, "svg"}, {ImageFormat::png, "png"}, {ImageFormat::pdf, "pdf"}});
  return names;
}

ImageFormat image_format_of(const std::string& path) {
  const auto dot = path.find_last_of('.');
  const std::optional<ImageFormat> format = format_named(dot == std::string::npos ? "" : path.substr(dot + 1));
  if (!format) throw ConfigError(path + ": an image file must end in .svg, .png or .pdf");
  return *format;
}

std::vector<ImageFormat> parse_image_formats(const std::string& list, const std::string& option) {
  std::vector<ImageFormat> out;
  for (const std::string& name : split_list(list)) {
    const std::optional<ImageFormat> format = format_named(name);
    const std::string prefix = option.empty() ? "" : option + ": ";
    if (!format) {
      throw ConfigError(prefix + "unknown image format '" + name + "' (expected " +
                        join_choices(enum_names(ImageFormat{}).names()) + ", comma-separated)");
    }
    if (std::find(out.begin(), out.end(), *format) != out.end()) throw ConfigError(prefix + "'" + name + "' twice");
    out.push_back(*format);
  }
  return out;
}

ImageFormatChoice ImageFormatChoice::parse(const std::string& text, const std::string& option) {
  if (text == "none") return {};
  return {parse_image_formats(text, option)};
}

std::string ImageFormatChoice::text() const {
  std::string out;
  for (const ImageFormat format : formats) out += (out.empty() ? "" : ",") + name_of(format);
  return out.empty() ? "none" : out;
}

struct Figure::Impl {
  cairo_surface_t* recording = nullptr;
  cairo_t* cr = nullptr;
  ~Impl() {
    if (cr != nullptr) cairo_destroy(cr);
    if (recording != nullptr) cairo_surface_destroy(recording);
  }
};

Figure::Figure(double width, double height) : width_(width), height_(height), impl_(std::make_unique<Impl>()) {
  const cairo_rectangle_t extents{0, 0, width, height};
  impl_->recording = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, &extents);
  impl_->cr = cairo_create(impl_->recording);
  if (cairo_status(impl_->cr) != CAIRO_STATUS_SUCCESS) {
    throw IoError(std::string("cannot start a drawing: ") + cairo_status_to_string(cairo_status(impl_->cr)));
  }
  cairo_set_source_rgb(impl_->cr, 1, 1, 1);
  cairo_paint(impl_->cr);
}

Figure::~Figure() = default;

_cairo* Figure::context() const { return impl_->cr; }

namespace {

// Called from cairo's C code: nothing may be thrown through it.
cairo_status_t append_bytes(void* closure, const unsigned char* data, unsigned int length) {
  try {
    static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
    return CAIRO_STATUS_SUCCESS;
  } catch (...) {
    return CAIRO_STATUS_NO_MEMORY;
  }
}

// PNG sides stay within this many pixels (cairo's own limit is 32767; a 250 x 385-piece heat-map
// at 2 pixels per point would need a 300 MB buffer): larger drawings get fewer pixels per point.
constexpr double kMaxPngSide = 8192;

void check(cairo_status_t status, const char* what) {
  if (status != CAIRO_STATUS_SUCCESS) throw IoError(std::string(what) + ": " + cairo_status_to_string(status));
}

}  // namespace

std::string Figure::encode(ImageFormat format, double png_pixels_per_point) const {
  check(cairo_status(impl_->cr), "drawing failed");
  cairo_surface_flush(impl_->recording);
  std::string bytes;
  cairo_surface_t* target = nullptr;
  double scale = 1;
  switch (format) {
    case ImageFormat::svg:
      target = cairo_svg_surface_create_for_stream(append_bytes, &bytes, width_, height_);
      break;
    case ImageFormat::pdf:
      target = cairo_pdf_surface_create_for_stream(append_bytes, &bytes, width_, height_);
      break;
    case ImageFormat::png:
      scale = std::min(png_pixels_per_point, kMaxPngSide / std::max(width_, height_));
      target = cairo_image_surface_create(CAIRO_FORMAT_RGB24, static_cast<int>(std::ceil(width_ * scale)),
                                          static_cast<int>(std::ceil(height_ * scale)));
      break;
  }
  cairo_t* cr = cairo_create(target);
  cairo_scale(cr, scale, scale);
  cairo_set_source_surface(cr, impl_->recording, 0, 0);
  cairo_paint(cr);
  const cairo_status_t drawn = cairo_status(cr);
  cairo_destroy(cr);
  cairo_status_t written = CAIRO_STATUS_SUCCESS;
  if (format == ImageFormat::png && drawn == CAIRO_STATUS_SUCCESS) {
    written = cairo_surface_write_to_png_stream(target, append_bytes, &bytes);
  }
  cairo_surface_finish(target);  // SVG and PDF write their bytes here
  const cairo_status_t finished = cairo_surface_status(target);
  cairo_surface_destroy(target);
  check(drawn, "cannot draw the image");
  check(finished, "cannot make the image");
  check(written, "cannot encode the PNG image");
  return bytes;
}

void Figure::draw_onto(_cairo* target, double x, double y) const {
  check(cairo_status(impl_->cr), "drawing failed");
  cairo_surface_flush(impl_->recording);
  cairo_save(target);
  cairo_set_source_surface(target, impl_->recording, x, y);
  cairo_rectangle(target, x, y, width_, height_);
  cairo_fill(target);
  cairo_restore(target);
}

void Figure::save(const std::string& path, double png_pixels_per_point) const {
  const ImageFormat format = image_format_of(path);
  std::string bytes;
  try {
    bytes = encode(format, png_pixels_per_point);
  } catch (const IoError& e) {
    throw IoError(path + ": " + e.what());
  }
  write_file_atomic(path, bytes);
}

}  // namespace nmt::plot
