#include "nmt/core/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace nmt {
namespace {

TEST(WorkerPool, RunsEveryTaskOnceOnSeveralThreads) {
  std::vector<std::atomic<int>> runs(100);
  std::mutex mutex;
  std::set<std::thread::id> threads;
  run_in_parallel(runs.size(), 3, [&](std::size_t i) {
    ++runs[i];
    const std::lock_guard<std::mutex> lock(mutex);
    threads.insert(std::this_thread::get_id());
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // let the others take some
  });
  for (std::size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i].load(), 1) << "task " << i;
  EXPECT_GT(threads.size(), 1u);
  EXPECT_LE(threads.size(), 3u);
  EXPECT_EQ(threads.count(std::this_thread::get_id()), 0u) << "the caller waits; workers run the tasks";
}

TEST(WorkerPool, OneWorkerOrOneTaskRunsInOrderInTheCallingThread) {
  for (const std::size_t workers : {0, 1, 8}) {
    std::vector<std::size_t> order;
    const std::size_t count = workers == 8 ? 1 : 5;
    run_in_parallel(count, workers, [&](std::size_t i) {
      EXPECT_EQ(std::this_thread::get_id(), std::this_thread::get_id());
      order.push_back(i);
    });
    std::vector<std::size_t> expected(count);
    for (std::size_t i = 0; i < count; ++i) expected[i] = i;
    EXPECT_EQ(order, expected) << workers << " workers";
  }
  const auto caller = std::this_thread::get_id();
  run_in_parallel(3, 1, [&](std::size_t) { EXPECT_EQ(std::this_thread::get_id(), caller); });
  run_in_parallel(0, 4, [](std::size_t) { FAIL() << "no tasks"; });
}

TEST(WorkerPool, TheFirstFailureStopsTheHandOutAndIsRethrown) {
  std::atomic<int> started{0};
  EXPECT_THROW(run_in_parallel(1000, 2,
                               [&](std::size_t i) {
                                 ++started;
                                 if (i == 3) throw std::runtime_error("task 3 failed");
                                 std::this_thread::sleep_for(std::chrono::microseconds(100));
                               }),
               std::runtime_error);
  EXPECT_LT(started.load(), 1000) << "tasks after the failure were not handed out";
  EXPECT_GE(started.load(), 4);
}

}  // namespace
}  // namespace nmt
