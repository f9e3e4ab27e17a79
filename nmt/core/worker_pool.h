// Tasks 0 .. count-1 on a few threads: each thread takes the next index as it becomes free.
#pragma once

#include <cstddef>
#include <functional>

namespace nmt {

/// Runs task(i) for every i in [0, count) on min(workers, count) threads (in the calling thread when
/// that is 1 or less), handing out indices in order. The first exception stops the hand-out (tasks
/// already running finish) and is rethrown here once every thread has ended. Thread-local settings
/// (grad mode, BLAS threads) are the task's to set.
void run_in_parallel(std::size_t count, std::size_t workers, const std::function<void(std::size_t)>& task);

}  // namespace nmt
