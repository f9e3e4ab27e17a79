#include "nmt/core/thread_count.h"

#include <sched.h>

#include <algorithm>
#include <mutex>
#include <set>
#include <thread>

#include "nmt/core/error.h"
#include "nmt/core/log.h"

namespace nmt {

int available_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

std::int64_t max_thread_count() { return std::max<std::int64_t>(64, 4 * static_cast<std::int64_t>(available_cores())); }

void check_thread_count(std::int64_t threads, const std::string& option) {
  const std::int64_t limit = max_thread_count();
  if (threads < 1 || threads > limit) {
    throw ConfigError(option + " must be in [1, " + std::to_string(limit) + "] (this machine has " +
                      std::to_string(available_cores()) + " cores), got " + std::to_string(threads));
  }
  static std::mutex mutex;
  static std::set<std::string> warned;  // options are validated more than once; warn once
  const std::lock_guard<std::mutex> lock(mutex);
  if (threads > available_cores() && warned.insert(option).second) {
    log().warn("{} {} is more than the {} cores this process may use: expect it to run slower, not faster", option,
               threads, available_cores());
  }
}

}  // namespace nmt
