#include "nmt/serve/connection_pool.h"

namespace nmt {

namespace {
thread_local std::optional<std::chrono::steady_clock::time_point> accepted_at;
}  // namespace

std::optional<std::chrono::steady_clock::time_point> take_connection_accepted_at() {
  std::optional<std::chrono::steady_clock::time_point> taken;
  taken.swap(accepted_at);
  return taken;
}

ConnectionPool::ConnectionPool(std::size_t threads) {
  threads_.reserve(threads);
  for (std::size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
}

ConnectionPool::~ConnectionPool() { shutdown(); }

void ConnectionPool::push(std::function<void()> fn) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    jobs_.emplace_back(std::move(fn), std::chrono::steady_clock::now());
  }
  ready_.notify_one();
}

void ConnectionPool::shutdown() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (shutting_down_ && threads_.empty()) return;
    shutting_down_ = true;
  }
  ready_.notify_all();
  for (std::thread& thread : threads_) thread.join();
  threads_.clear();
}

void ConnectionPool::work() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      ready_.wait(lock, [this] { return shutting_down_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // shutting down with nothing left
      job = std::move(jobs_.front().first);
      accepted_at = jobs_.front().second;
      jobs_.pop_front();
    }
    job();  // serves the connection (its requests) and closes it; cpp-httplib catches inside
    accepted_at.reset();
  }
}

}  // namespace nmt
