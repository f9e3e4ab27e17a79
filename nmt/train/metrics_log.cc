#include "nmt/train/metrics_log.h"

#include <cerrno>
#include <cstring>

#include "nmt/core/error.h"

namespace nmt {

MetricsLog::MetricsLog(const std::string& path) : path_(path), out_(path, std::ios::app) {
  if (!out_) throw IoError("cannot open metrics file " + path + ": " + std::strerror(errno));
  // A run killed mid-line left the file without its last newline: end that line, so that the
  // resumed run's first event is a line of its own (readers skip the cut one).
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (in && in.tellg() > 0) {
    in.seekg(-1, std::ios::end);
    char last = '\n';
    if (in.get(last) && last != '\n') {
      out_ << '\n';
      out_.flush();
    }
  }
}

void MetricsLog::write_line(const std::string& json_object) {
  out_ << json_object << '\n';
  out_.flush();
  if (!out_) throw IoError("cannot write metrics file " + path_ + ": " + std::strerror(errno));
}

}  // namespace nmt
