#include "nmt/dist/heartbeat.h"

#include <chrono>
#include <cstdint>
#include <future>
#include <memory>
#include <utility>
#include <vector>

#include "nmt/dist/rendezvous.h"

namespace nmt {

using Milliseconds = std::chrono::milliseconds;

Heartbeat::Heartbeat(c10::intrusive_ptr<c10d::Store> store, std::string key)
    : store_(std::move(store)), key_(std::move(key)) {
  store_->add(key_, 1);
  thread_ = std::thread([this] { run(); });
}

Heartbeat::~Heartbeat() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void Heartbeat::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, std::chrono::milliseconds(500), [this] { return stop_; })) {
    try {
      store_->add(key_, 1);
    } catch (const std::exception&) {
      return;  // the store is gone: so is the group
    }
  }
}

std::string roll_call(const RankInfo& place, const std::string& prefix) {
  // Compares every rank's heartbeat counter over two seconds, through a connection of its own
  // with a short timeout, in a thread with a hard deadline (a stopped rank 0 holds the store).
  auto answer = std::make_shared<std::promise<std::string>>();
  auto result = answer->get_future();
  std::thread([answer, place, prefix] {
    std::string text;
    try {
      auto store = store_client(place, Milliseconds(3000));
      std::vector<std::int64_t> before(static_cast<std::size_t>(place.world_size));
      for (int r = 0; r < place.world_size; ++r) before[static_cast<std::size_t>(r)] = store->add(prefix + std::to_string(r), 0);
      std::this_thread::sleep_for(std::chrono::seconds(2));
      std::string list;
      int silent = 0;
      for (int r = 0; r < place.world_size; ++r) {
        if (r == place.rank || store->add(prefix + std::to_string(r), 0) != before[static_cast<std::size_t>(r)]) continue;
        list += (list.empty() ? "" : ", ") + std::to_string(r);
        ++silent;
      }
      text = silent == 0 ? "every other rank is still alive: one may be stuck, see its log"
                         : (silent == 1 ? "rank " + list + " does" : "ranks " + list + " do") +
                               " not answer (died, stopped or cut off)";
    } catch (const std::exception&) {
      text = "rank 0 does not answer (it holds the rendezvous store: died, stopped or cut off)";
    }
    answer->set_value(text);
  }).detach();
  if (result.wait_for(std::chrono::seconds(8)) != std::future_status::ready) {
    return "rank 0 does not answer (it holds the rendezvous store: stopped or cut off)";
  }
  return result.get();
}

}  // namespace nmt
