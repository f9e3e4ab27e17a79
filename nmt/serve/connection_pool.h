// The threads that serve nmt-serve's connections, in place of cpp-httplib's ThreadPool, which
// queues connections without bound or record. Each connection is stamped when accepted; the
// thread that takes it up publishes the stamp (connection_accepted_at()), so that a request's time
// limit counts from accept, and a connection that waited too long for a free thread is answered
// 503 at once (translation_server.cc's pre-routing handler) instead of joining a backlog that
// only grows.
#pragma once

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace nmt {

/// When the connection the calling thread serves was accepted; empty once taken (the first
/// request of a connection waited in the pool, later ones on a kept-alive connection did not).
std::optional<std::chrono::steady_clock::time_point> take_connection_accepted_at();

class ConnectionPool : public httplib::TaskQueue {
  // cpp-httplib 0.11 (Debian 12) declares `void enqueue`, later ones (0.18, Debian 13) `bool`.
  using EnqueueResult = decltype(std::declval<httplib::TaskQueue&>().enqueue(std::function<void()>()));

 public:
  explicit ConnectionPool(std::size_t threads);
  ~ConnectionPool() override;
  EnqueueResult enqueue(std::function<void()> fn) override {
    push(std::move(fn));
    return accepted<EnqueueResult>();
  }
  /// Runs every connection already queued, then joins the threads.
  void shutdown() override;

 private:
  template <class Result>
  static Result accepted() {
    if constexpr (std::is_same_v<Result, bool>) return true;  // queued (always: the wait is bounded instead)
  }
  void push(std::function<void()> fn);
  void work();

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::pair<std::function<void()>, std::chrono::steady_clock::time_point>> jobs_;
  bool shutting_down_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace nmt
