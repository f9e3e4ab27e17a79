// Counts the filled squares of a given size in an SVG document as cairo writes it (a <path> whose
// d is one axis-aligned rectangle, or a <rect>): the heat-map's cells, one per source x target
// position. Format-tolerant across cairo 1.16 (style="...") and 1.18 (presentation attributes).
#pragma once

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace nmt::test {

inline std::string svg_attribute(const std::string& element, const std::string& name) {
  const std::string key = " " + name + "=\"";
  const auto at = element.find(key);
  if (at == std::string::npos) return "";
  const auto end = element.find('"', at + key.size());
  return element.substr(at + key.size(), end - at - key.size());
}

inline bool filled(const std::string& element) {
  const std::string style = svg_attribute(element, "style");
  if (style.find("fill:none") != std::string::npos || svg_attribute(element, "fill") == "none") return false;
  return style.find("fill:") != std::string::npos || !svg_attribute(element, "fill").empty();
}

// "M x0 y0 L x1 y0 L x1 y1 L x0 y1 Z [M x0 y0]" -> width and height; false for any other path.
inline bool rectangle_size(const std::string& d, double* width, double* height) {
  std::istringstream in(d);
  std::vector<double> numbers;
  std::string token;
  std::string commands;
  while (in >> token) {
    if (token == "M" || token == "L" || token == "Z") {
      commands += token;
    } else {
      char* end = nullptr;
      numbers.push_back(std::strtod(token.c_str(), &end));
      if (*end != '\0') return false;
    }
  }
  if (commands != "MLLLZ" && commands != "MLLLZM") return false;
  const double x0 = numbers[0], y0 = numbers[1], x1 = numbers[2], y1 = numbers[5];
  if (std::abs(numbers[3] - y0) > 1e-3 || std::abs(numbers[4] - x1) > 1e-3 || std::abs(numbers[6] - x0) > 1e-3 ||
      std::abs(numbers[7] - y1) > 1e-3) {
    return false;
  }
  *width = std::abs(x1 - x0);
  *height = std::abs(y1 - y0);
  return true;
}

inline std::size_t count_filled_squares(const std::string& svg, double size) {
  std::size_t count = 0;
  for (const std::string tag : {"<path", "<rect"}) {
    for (auto at = svg.find(tag); at != std::string::npos; at = svg.find(tag, at + 1)) {
      const std::string element = svg.substr(at, svg.find('>', at) - at);
      if (!filled(element)) continue;
      double w = 0, h = 0;
      const bool rect = tag == std::string("<rect");
      if (rect) {
        w = std::atof(svg_attribute(element, "width").c_str());
        h = std::atof(svg_attribute(element, "height").c_str());
      } else if (!rectangle_size(svg_attribute(element, "d"), &w, &h)) {
        continue;
      }
      if (std::abs(w - size) < 1e-3 && std::abs(h - size) < 1e-3) ++count;
    }
  }
  return count;
}

}  // namespace nmt::test
