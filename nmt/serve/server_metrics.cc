#include "nmt/serve/server_metrics.h"

#include <algorithm>
#include <cstdio>

namespace nmt {

namespace {

std::string number(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

// A label value as the format asks: backslash, double quote and newline escaped.
std::string label_value(const std::string& value) {
  std::string out;
  for (const char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

void header(std::string& out, const std::string& name, const std::string& type, const std::string& help) {
  out += "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

}  // namespace

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds_(std::move(upper_bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::observe(double value) {
  const auto bucket = static_cast<std::size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin());
  ++counts_[bucket];
  sum_ += value;
  ++count_;
}

void Histogram::write(std::string& out, const std::string& name) const {
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i <= bounds_.size(); ++i) {
    cumulative += counts_[i];
    const std::string le = i < bounds_.size() ? number(bounds_[i]) : "+Inf";
    out += name + "_bucket{le=\"" + le + "\"} " + std::to_string(cumulative) + "\n";
  }
  out += name + "_sum " + number(sum_) + "\n" + name + "_count " + std::to_string(count_) + "\n";
}

ServerMetrics::ServerMetrics()
    : latency_({0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}),
      batch_sentences_({1, 2, 4, 8, 16, 32, 64, 128, 256}),
      batch_seconds_({0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}) {}

void ServerMetrics::count_request(const std::string& route, int status, double seconds) {
  const std::lock_guard<std::mutex> lock(mutex_);
  ++requests_[{route, status}];
  latency_.observe(seconds);
}

void ServerMetrics::count_sentences(std::size_t sentences) {
  const std::lock_guard<std::mutex> lock(mutex_);
  sentences_ += sentences;
}

void ServerMetrics::count_cut_off(const std::string& part) {
  const std::lock_guard<std::mutex> lock(mutex_);
  ++cut_offs_[part];
}

void ServerMetrics::count_batch(std::size_t sentences, double seconds) {
  const std::lock_guard<std::mutex> lock(mutex_);
  batch_sentences_.observe(static_cast<double>(sentences));
  batch_seconds_.observe(seconds);
}

std::string ServerMetrics::prometheus(std::size_t queued, std::size_t workers) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::string out;
  header(out, "nmt_serve_requests_total", "counter", "Requests answered, by route and status code.");
  for (const auto& [key, count] : requests_) {
    out += "nmt_serve_requests_total{route=\"" + label_value(key.first) + "\",code=\"" + std::to_string(key.second) +
           "\"} " + std::to_string(count) + "\n";
  }
  header(out, "nmt_serve_errors_total", "counter", "Requests answered with a status code of 400 or more, by code.");
  std::map<int, std::uint64_t> errors;
  for (const auto& [key, count] : requests_) {
    if (key.second >= 400) errors[key.second] += count;
  }
  for (const auto& [code, count] : errors) {
    out += "nmt_serve_errors_total{code=\"" + std::to_string(code) + "\"} " + std::to_string(count) + "\n";
  }
  header(out, "nmt_serve_cut_offs_total", "counter",
         "Requests cut off (408) because their headers or body arrived too slowly, by part.");
  for (const char* part : {"header", "body"}) {
    const auto it = cut_offs_.find(part);
    out += std::string("nmt_serve_cut_offs_total{part=\"") + part + "\"} " +
           std::to_string(it == cut_offs_.end() ? 0 : it->second) + "\n";
  }
  header(out, "nmt_serve_sentences_total", "counter", "Sentences requested for translation (after splitting).");
  out += "nmt_serve_sentences_total " + std::to_string(sentences_) + "\n";
  header(out, "nmt_serve_queue_sentences", "gauge", "Sentences waiting for a search worker.");
  out += "nmt_serve_queue_sentences " + std::to_string(queued) + "\n";
  header(out, "nmt_serve_search_workers", "gauge", "Threads translating batches.");
  out += "nmt_serve_search_workers " + std::to_string(workers) + "\n";
  header(out, "nmt_serve_request_duration_seconds", "histogram", "Seconds from a request's arrival to its answer.");
  latency_.write(out, "nmt_serve_request_duration_seconds");
  header(out, "nmt_serve_batch_sentences", "histogram", "Sentences per batch a search worker translated.");
  batch_sentences_.write(out, "nmt_serve_batch_sentences");
  header(out, "nmt_serve_batch_duration_seconds", "histogram", "Seconds a search worker spent on one batch.");
  batch_seconds_.write(out, "nmt_serve_batch_duration_seconds");
  return out;
}

}  // namespace nmt
