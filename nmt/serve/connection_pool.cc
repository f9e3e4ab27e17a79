#include "nmt/serve/connection_pool.h"

#include <algorithm>

namespace nmt {

namespace {
thread_local std::optional<std::chrono::steady_clock::time_point> accepted_at;
}  // namespace

std::optional<std::chrono::steady_clock::time_point> take_connection_accepted_at() {
  std::optional<std::chrono::steady_clock::time_point> taken;
  taken.swap(accepted_at);
  return taken;
}

ConnectionPool::ConnectionPool(std::size_t max_threads, std::chrono::steady_clock::duration idle_exit)
    : max_threads_(std::max<std::size_t>(1, max_threads)), idle_exit_(idle_exit) {}

ConnectionPool::~ConnectionPool() { shutdown(); }

std::size_t ConnectionPool::threads() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return threads_.size() - finished_.size();
}

void ConnectionPool::reap_finished() {
  for (const std::thread::id id : finished_) {
    const auto it = std::find_if(threads_.begin(), threads_.end(), [id](const std::thread& t) { return t.get_id() == id; });
    if (it == threads_.end()) continue;
    it->join();  // it has left work() or is about to: returns at once
    threads_.erase(it);
  }
  finished_.clear();
}

void ConnectionPool::push(std::function<void()> fn) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    reap_finished();
    jobs_.emplace_back(std::move(fn), std::chrono::steady_clock::now());
    // Every queued job needs a thread of its own: start one while fewer are idle than jobs wait.
    if (idle_ < jobs_.size() && threads_.size() < max_threads_) threads_.emplace_back([this] { work(); });
  }
  ready_.notify_one();
}

void ConnectionPool::shutdown() {
  std::vector<std::thread> threads;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    shutting_down_ = true;
    threads.swap(threads_);
    finished_.clear();
  }
  ready_.notify_all();
  for (std::thread& thread : threads) thread.join();
}

void ConnectionPool::work() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      ++idle_;
      const bool woken = ready_.wait_for(lock, idle_exit_, [this] { return shutting_down_ || !jobs_.empty(); });
      --idle_;
      if (jobs_.empty()) {  // shutting down with nothing left, or idle too long
        if (!woken && !shutting_down_) finished_.push_back(std::this_thread::get_id());
        return;
      }
      job = std::move(jobs_.front().first);
      accepted_at = jobs_.front().second;
      jobs_.pop_front();
    }
    job();  // serves the connection (its requests) and closes it
    accepted_at.reset();
  }
}

}  // namespace nmt
