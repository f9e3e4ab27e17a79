// Machine-readable training metrics: one event (nmt/data/metrics_events.h) per line of
// RUN_DIR/metrics.jsonl, flushed as written, for plotting.
#pragma once

#include <fstream>
#include <string>

#include "nmt/data/metrics_events.h"

namespace nmt {

class MetricsLog {
 public:
  /// Appends to `path` (a resumed run continues the same file). Throws IoError.
  explicit MetricsLog(const std::string& path);
  /// Writes one event as a line.
  void write(const TrainEvent& event) { write_line(to_json(event)); }
  void write(const ValidEvent& event) { write_line(to_json(event)); }

 private:
  void write_line(const std::string& json_object);

  std::string path_;
  std::ofstream out_;
};

}  // namespace nmt
