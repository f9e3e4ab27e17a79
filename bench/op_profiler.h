// Self and total time per ATen operator, from RecordFunction callbacks: where a benchmark's time goes.
#pragma once

#include <ATen/record_function.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace nmt::bench {

// Self and total time per ATen operator and autograd node, from RecordFunction callbacks (the
// public hook the profilers use): every operator call opens a range on its thread's stack.
struct OpStats {
  std::int64_t calls = 0;
  double self_us = 0, total_us = 0;
};

class OpProfiler {
 public:
  OpProfiler() { handle_ = at::addGlobalCallback(at::RecordFunctionCallback(&enter, &leave).needsInputs(false)); }
  ~OpProfiler() { at::removeCallback(handle_); }
  OpProfiler(const OpProfiler&) = delete;
  OpProfiler& operator=(const OpProfiler&) = delete;
  static std::map<std::string, OpStats> take() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(stats_, {});
  }

 private:
  using Clock = std::chrono::steady_clock;
  struct Open {
    Clock::time_point start;
    double children_us;
  };
  static std::vector<Open>& stack() {
    thread_local std::vector<Open> open;
    return open;
  }
  static std::unique_ptr<at::ObserverContext> enter(const at::RecordFunction&) {
    stack().push_back({Clock::now(), 0.0});
    return nullptr;
  }
  static void leave(const at::RecordFunction& fn, at::ObserverContext*) {
    auto& open = stack();
    if (open.empty()) return;  // entered before the callback was added
    const Open range = open.back();
    open.pop_back();
    const double total = std::chrono::duration<double, std::micro>(Clock::now() - range.start).count();
    if (!open.empty()) open.back().children_us += total;
    const std::lock_guard<std::mutex> lock(mutex_);
    OpStats& s = stats_[fn.name()];
    ++s.calls;
    s.total_us += total;
    s.self_us += total - range.children_us;
  }

  at::CallbackHandle handle_;
  static inline std::mutex mutex_;
  static inline std::map<std::string, OpStats> stats_;
};

inline void print_profile(const std::map<std::string, OpStats>& stats, int steps, double wall_seconds, const char* unit = "steps") {
  std::vector<std::pair<std::string, OpStats>> rows(stats.begin(), stats.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.self_us > b.second.self_us; });
  std::int64_t calls = 0;
  double self = 0;
  for (const auto& [name, s] : rows) {
    calls += s.calls;
    self += s.self_us;
  }
  std::printf("\noperator profile over %d %s (RecordFunction callbacks; %.1f ms/step wall while profiling): "
              "%.0f operator calls and autograd nodes per step\n",
              steps, unit, 1000 * wall_seconds / steps, static_cast<double>(calls) / steps);
  std::printf("%-48s %10s %12s %12s %7s\n", "operator", "calls/step", "self ms/step", "total ms/step", "self %");
  for (std::size_t i = 0; i < rows.size() && i < 30; ++i) {
    const auto& [name, s] = rows[i];
    std::printf("%-48s %10.1f %12.2f %12.2f %6.1f%%\n", name.substr(0, 48).c_str(),
                static_cast<double>(s.calls) / steps, s.self_us / 1000 / steps, s.total_us / 1000 / steps,
                100 * s.self_us / self);
  }
}

}  // namespace nmt::bench
