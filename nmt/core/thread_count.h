// Bounds for user-given thread counts (--threads, --workers, train's threads).
//
// Why: an absurd count crashes libgomp (1e9 threads: out of memory, then SIGABRT) and more threads
// than cores slows everything down (64 on 2 cores: ~9x slower, measured), silently.
#pragma once

#include <cstdint>
#include <string>

namespace nmt {

/// CPU cores this process may run on (its affinity mask), at least 1.
int available_cores();

/// The most threads an option accepts: max(64, 4 x available_cores()).
std::int64_t max_thread_count();

/// Throws ConfigError naming `option` unless 1 <= threads <= max_thread_count(); logs a warning
/// (once per option and process) when threads exceed the available cores.
void check_thread_count(std::int64_t threads, const std::string& option);

}  // namespace nmt
