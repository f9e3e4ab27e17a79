// Liveness of a data-parallel group's ranks (internal to nmt/dist; not installed): every rank
// bumps a counter in the store twice a second, and a failed collective's roll call tells ranks
// that are gone or stopped (their counters stand still) from ranks that are merely busy elsewhere
// (rank 0 validating).
#pragma once

#include <torch/csrc/distributed/c10d/Store.hpp>

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "nmt/dist/dist_options.h"

namespace nmt {

/// Bumps `key` in `store` twice a second from a thread of its own, until destroyed.
class Heartbeat {
 public:
  Heartbeat(c10::intrusive_ptr<c10d::Store> store, std::string key);
  ~Heartbeat();

 private:
  void run();
  c10::intrusive_ptr<c10d::Store> store_;
  std::string key_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

/// Which ranks' counters under `prefix` (prefix + rank) stood still over two seconds, in words for an
/// error: "rank 1 does not answer ...", "every other rank is still alive ...", or "rank 0 does not
/// answer" (the store). Through a connection of its own, within 8 seconds whatever happens.
std::string roll_call(const RankInfo& place, const std::string& prefix);

}  // namespace nmt
