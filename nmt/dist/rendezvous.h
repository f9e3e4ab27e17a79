// The rendezvous of a data-parallel group (internal to nmt/dist; not installed): c10d's store,
// a TCPStore that rank 0 serves (or torchrun's agent does) or, for nmt's own supervisor, a file
// store in a private folder; and the one reader of c10d's messages. Communicator joins the group
// through it; the heartbeat and the roll call open connections of their own.
#pragma once

#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <exception>
#include <string>

#include "nmt/dist/dist_options.h"

namespace nmt {

/// What a c10d error says, in one line of at most 300 characters.
std::string reason_of(const std::exception& e);

/// The rendezvous: every rank opens the group's store and waits until every rank has come (at
/// most `timeout`). Throws DistError naming the rank and what failed (port in use, master
/// unreachable, ranks missing).
c10::intrusive_ptr<c10d::Store> open_store(const RankInfo& place, std::chrono::milliseconds timeout);

/// Another connection to the group's store, for the heartbeat and the roll call; it does not count
/// as a rank joining.
c10::intrusive_ptr<c10d::Store> store_client(const RankInfo& place, std::chrono::milliseconds timeout);

}  // namespace nmt
