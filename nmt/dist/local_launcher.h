// Starting and supervising the ranks of one machine, as torchrun does: `nmt-train
// --dist.nproc-per-node N ...` runs N copies of itself, one rank each (docs/distributed.md).
#pragma once

#include <string>
#include <vector>

#include "nmt/dist/dist_options.h"

namespace nmt {

/// A loopback port nobody listens on now (the kernel's pick for port 0). Another program may take
/// it before it is used: rank 0 then reports a port in use. Throws Error when there is none.
int find_free_port();

/// Starts ranks node_rank x nproc_per_node .. + nproc_per_node - 1 of the group as child processes
/// running this program (/proc/self/exe) with `arguments` (argv[1..], unchanged) and torchrun's
/// variables (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR,
/// MASTER_PORT); a child dies with SIGTERM when the supervisor dies. SIGINT and SIGTERM are
/// passed on to every rank (which stop together at a step boundary with one checkpoint).
///
/// When a rank fails, the others get SIGTERM (a rank still joining the group ends at once, a
/// training one at its next step, where the lost rank fails its collective) and are killed if
/// still there after `grace_s` seconds. Ranks get TORCHELASTIC_RUN_ID, unique to this group.
/// Returns the program's exit status: 0 when every rank succeeded, else the first failed rank's
/// status (128 + signal when a signal ended it). Logs one line per failed rank, naming it.
int supervise_local_ranks(const DistOptions& options, const RankInfo& first, const std::vector<std::string>& arguments,
                          double grace_s);

}  // namespace nmt
