// What nmt-serve counts, and its Prometheus text exposition (GET /metrics; format 0.0.4:
// https://prometheus.io/docs/instrumenting/exposition_formats/). Thread-safe: the HTTP threads
// count requests, the search workers count batches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace nmt {

/// Counts of observations at or below each upper bound (cumulative when written), their sum and count.
class Histogram {
 public:
  explicit Histogram(std::vector<double> upper_bounds);
  void observe(double value);
  /// `name`_bucket{le="..."} lines (cumulative, +Inf last), `name`_sum and `name`_count.
  void write(std::string& out, const std::string& name) const;

 private:
  std::vector<double> bounds_;
  std::vector<std::uint64_t> counts_;  // per bucket, not cumulative; one more for +Inf
  double sum_ = 0;
  std::uint64_t count_ = 0;
};

class ServerMetrics {
 public:
  ServerMetrics();
  /// One answered request: its route ("/translate", "/v1/translate", ...; "other" for unknown
  /// paths), status code and seconds from arrival to answer.
  void count_request(const std::string& route, int status, double seconds);
  /// Sentences a request asked to translate (after splitting).
  void count_sentences(std::size_t sentences);
  /// A request cut off for being late: `part` is "header" or "body" (--header-timeout, --body-timeout).
  void count_cut_off(const std::string& part);
  /// One batch a search worker translated.
  void count_batch(std::size_t sentences, double seconds);
  /// The exposition text; `queued`: sentences waiting now, `workers`: search workers.
  std::string prometheus(std::size_t queued, std::size_t workers) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, std::uint64_t> requests_;  // (route, status) -> count
  std::map<std::string, std::uint64_t> cut_offs_;  // part -> count
  std::uint64_t sentences_ = 0;
  Histogram latency_, batch_sentences_, batch_seconds_;
};

}  // namespace nmt
