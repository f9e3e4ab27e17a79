// Small helpers for the benchmark programs: wall-clock timing and memory of this process.
#pragma once

#include <chrono>
#include <fstream>
#include <string>

namespace nmt::bench {

class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

/// A field of /proc/self/status in MiB ("VmRSS": resident now, "VmHWM": peak resident).
inline double proc_status_mib(const std::string& field) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(field + ":", 0) == 0) return std::stod(line.substr(field.size() + 1)) / 1024.0;
  }
  return -1;
}

}  // namespace nmt::bench
