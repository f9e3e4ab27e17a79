// Machine-readable training metrics: one JSON object per line, flushed as written, for plotting.
#pragma once

#include <fstream>
#include <string>

namespace nmt {

class MetricsLog {
 public:
  /// Appends to `path` (a resumed run continues the same file). Throws IoError.
  explicit MetricsLog(const std::string& path);
  /// Writes one line; `json_object` is a serialised JSON object.
  void write(const std::string& json_object);

 private:
  std::string path_;
  std::ofstream out_;
};

}  // namespace nmt
