// The threads that serve nmt-serve's connections, in place of cpp-httplib's ThreadPool, which
// starts all its threads at once and queues connections without bound or record.
//
// A thread is started when a connection arrives and no thread is idle, up to `max_threads`; a
// thread idle for a minute ends. So a few hundred slow clients (each holds its thread until its
// header or body time limit, http_connection.h) leave threads for everyone else, and an idle
// server keeps few. Beyond `max_threads`, connections wait, each stamped when accepted; the
// thread that takes one up publishes the stamp (take_connection_accepted_at()), so that a
// request's time limit counts from accept, and a connection that waited too long for a thread is
// answered 503 at once (translation_server.cc's pre-routing handler) instead of joining a backlog
// that only grows.
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
  explicit ConnectionPool(std::size_t max_threads,
                          std::chrono::steady_clock::duration idle_exit = std::chrono::seconds(60));
  ~ConnectionPool() override;
  EnqueueResult enqueue(std::function<void()> fn) override {
    push(std::move(fn));
    return accepted<EnqueueResult>();
  }
  /// Runs every connection already queued, then joins the threads.
  void shutdown() override;
  /// Threads running now (busy or idle).
  std::size_t threads() const;

 private:
  template <class Result>
  static Result accepted() {
    if constexpr (std::is_same_v<Result, bool>) return true;  // queued (always: the wait is bounded instead)
  }
  void push(std::function<void()> fn);
  void work();
  void reap_finished();  // joins threads that ended idle (under mutex_)

  const std::size_t max_threads_;
  const std::chrono::steady_clock::duration idle_exit_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::pair<std::function<void()>, std::chrono::steady_clock::time_point>> jobs_;
  bool shutting_down_ = false;
  std::size_t idle_ = 0;                   // threads waiting for a job
  std::vector<std::thread> threads_;       // running
  std::vector<std::thread::id> finished_;  // ended idle, to be joined
};

}  // namespace nmt
