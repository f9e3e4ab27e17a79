#include "nmt/train/metrics_log.h"

#include <cerrno>
#include <cstring>

#include "nmt/core/error.h"

namespace nmt {

MetricsLog::MetricsLog(const std::string& path) : path_(path), out_(path, std::ios::app) {
  if (!out_) throw IoError("cannot open metrics file " + path + ": " + std::strerror(errno));
}

void MetricsLog::write(const std::string& json_object) {
  out_ << json_object << '\n';
  out_.flush();
  if (!out_) throw IoError("cannot write metrics file " + path_ + ": " + std::strerror(errno));
}

}  // namespace nmt
