#include "nmt/dist/rendezvous.h"

#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "nmt/core/decimal_number.h"
#include "nmt/core/error.h"
#include "nmt/core/torch_error.h"
#include "nmt/dist/communicator.h"

namespace nmt {

using Milliseconds = std::chrono::milliseconds;

std::string reason_of(const std::exception& e) {
  std::string text = nmt::first_line(e);
  if (text.size() > 300) text = text.substr(0, 300) + "...";
  return text;
}

StoreServerFailure classify_store_server_failure(const std::string& message) {
  // c10d's TCPStore server, LibTorch 1.13 to 2.6: "... address already in use", "... failed to
  // listen ...", and "... Timed out waiting ..." / "... timeout ..." when ranks are missing.
  if (message.find("in use") != std::string::npos || message.find("listen") != std::string::npos) {
    return StoreServerFailure::port_in_use;
  }
  if (message.find("imed out") != std::string::npos || message.find("imeout") != std::string::npos) {
    return StoreServerFailure::ranks_missing;
  }
  return StoreServerFailure::other;
}

namespace {

// LibTorch 2.4+ serves the store with libuv by default; the classic server behaves the same in
// every version we support, so ask for it where the option exists.
template <class Options>
auto use_classic_store_server(Options& options, int) -> decltype(options.useLibUV = false, void()) {
  options.useLibUV = false;
}
template <class Options>
void use_classic_store_server(Options&, long) {}

bool agent_serves_store() {
  // torchrun's agent already serves a store on MASTER_PORT and says so: rank 0 joins it as a client.
  const char* flag = std::getenv("TORCHELASTIC_USE_AGENT_STORE");
  return flag != nullptr && (std::string(flag) == "True" || std::string(flag) == "1");
}

// A one-machine group's rendezvous (nmt's supervisor): every rank opens the file store, writes
// its key and waits for every other rank's (at most `timeout`); nothing listens on the network.
c10::intrusive_ptr<c10d::Store> open_file_store(const RankInfo& place, Milliseconds timeout) {
  const std::string who = "rank " + std::to_string(place.rank);
  c10::intrusive_ptr<c10d::FileStore> store;
  try {
    // c10d's file store waits for a missing folder until its default timeout (300 s): not here.
    const std::filesystem::path folder = std::filesystem::path(place.store_file).parent_path();
    if (!std::filesystem::is_directory(folder.empty() ? "." : folder)) throw std::runtime_error("no such folder");
    store = c10::make_intrusive<c10d::FileStore>(place.store_file, -1);
  } catch (const std::exception& e) {
    throw DistError(who + " cannot open the group's file store " + place.store_file + ": " + reason_of(e));
  }
  store->setTimeout(timeout);
  std::vector<std::string> keys;
  for (int r = 0; r < place.world_size; ++r) keys.push_back("nmt-join/" + std::to_string(r));
  try {
    store->set(keys[static_cast<std::size_t>(place.rank)], std::vector<std::uint8_t>{1});
    store->wait(keys, timeout);
  } catch (const std::exception& e) {
    std::string missing;
    int count = 0;
    try {
      for (int r = 0; r < place.world_size; ++r) {
        if (store->check({keys[static_cast<std::size_t>(r)]})) continue;
        missing += (missing.empty() ? "" : ", ") + std::to_string(r);
        ++count;
      }
    } catch (const std::exception&) {
    }
    throw DistError(who + ": not every one of the " + std::to_string(place.world_size) + " ranks reached " +
                    place.rendezvous() + " within " + std::to_string(timeout.count() / 1000) + " s" +
                    (count == 0 ? ": " + reason_of(e)
                                : (count == 1 ? " (rank " : " (ranks ") + missing + (count == 1 ? " is" : " are") +
                                      " missing)"));
  }
  return store;
}

}  // namespace

// The rendezvous: rank 0 serves the store (unless torchrun's agent does), the others connect; all
// wait until every rank has come (at most `timeout`).
c10::intrusive_ptr<c10d::Store> open_store(const RankInfo& place, Milliseconds timeout) {
  if (!place.store_file.empty()) return open_file_store(place, timeout);
  const std::string master = place.master_addr + ":" + std::to_string(place.master_port);
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(place.master_port);
  options.isServer = place.rank == 0 && !agent_serves_store();
  options.numWorkers = static_cast<std::size_t>(place.world_size);
  options.waitWorkers = true;
  options.timeout = timeout;
  use_classic_store_server(options, 0);
  try {
    return c10::make_intrusive<c10d::TCPStore>(place.master_addr, options);
  } catch (const std::exception& e) {
    const std::string reason = reason_of(e);
    const std::string seconds = std::to_string(timeout.count() / 1000);
    if (!options.isServer) {
      throw DistError("rank " + std::to_string(place.rank) + " cannot reach the master " + master + " within " +
                      seconds + " s (check dist.master-addr and dist.master-port): " + reason);
    }
    switch (classify_store_server_failure(reason)) {
      case StoreServerFailure::ranks_missing:
        throw DistError("rank 0: not every one of the " + std::to_string(place.world_size) + " ranks reached " +
                        master + " within " + seconds + " s: " + reason);
      case StoreServerFailure::port_in_use:
        throw DistError("rank 0 cannot serve the rendezvous on " + master + " (dist.master-port is in use?): " + reason);
      default:
        throw DistError("rank 0 cannot serve the rendezvous on " + master + ": " + reason);
    }
  }
}

// Another connection to the group's store, for the heartbeat and the roll call; it does not count
// as a rank joining. A file store is opened again (no worker count: it never removes the file,
// the supervisor does).
c10::intrusive_ptr<c10d::Store> store_client(const RankInfo& place, Milliseconds timeout) {
  if (!place.store_file.empty()) {
    auto store = c10::make_intrusive<c10d::FileStore>(place.store_file, -1);
    store->setTimeout(timeout);
    return store;
  }
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(place.master_port);
  options.isServer = false;
  options.waitWorkers = false;
  options.timeout = timeout;
  use_classic_store_server(options, 0);
  return c10::make_intrusive<c10d::TCPStore>(place.master_addr, options);
}

}  // namespace nmt
