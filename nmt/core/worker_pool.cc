#include "nmt/core/worker_pool.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace nmt {

void run_in_parallel(std::size_t count, std::size_t workers, const std::function<void(std::size_t)>& task) {
  const std::size_t threads_wanted = std::min(count, workers);
  if (threads_wanted <= 1) {
    for (std::size_t i = 0; i < count; ++i) task(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::exception_ptr failure;
  std::vector<std::thread> threads;
  threads.reserve(threads_wanted);
  for (std::size_t w = 0; w < threads_wanted; ++w) {
    threads.emplace_back([&] {
      try {
        for (std::size_t i = next++; i < count; i = next++) task(i);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(mutex);
        if (!failure) failure = std::current_exception();
        next = count;  // the others stop after their current task
      }
    });
  }
  for (std::thread& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace nmt
