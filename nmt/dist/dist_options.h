// Data-parallel training: the options of the [dist] section and the rank a process plays
// (docs/distributed.md).
//
// A process learns its place in a group from its options or from the variables launchers set:
//   torchrun:           RANK, WORLD_SIZE, LOCAL_RANK (+ MASTER_ADDR, MASTER_PORT)
//   Slurm (srun):       SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID (only in an srun step: SLURM_STEP_ID)
//   Open MPI (mpirun):  OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE, OMPI_COMM_WORLD_LOCAL_RANK
//   MPICH / Hydra:      PMI_RANK, PMI_SIZE (local rank: MPI_LOCALRANKID)
// in that order of precedence; MASTER_ADDR and MASTER_PORT give the rendezvous point unless the
// options do. Without any of them and with dist.nproc-per-node 1, training is one process.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "nmt/core/enum_names.h"

namespace nmt {

enum class DistBackend { automatic, gloo, nccl };
const EnumNames<DistBackend>& enum_names(DistBackend);  // auto, gloo, nccl

struct DistOptions {
  int nproc_per_node = 1;          // ranks this command starts and supervises on this machine
  int nnodes = 1;                  // machines in the group
  int node_rank = 0;               // this machine's place among them, 0 .. nnodes-1
  std::string master_addr;         // host of rank 0 (empty: MASTER_ADDR, else 127.0.0.1)
  int master_port = 0;             // its port for the rendezvous (0: MASTER_PORT, else 29500)
  DistBackend backend = DistBackend::automatic;  // gloo on CPU, nccl on CUDA where LibTorch has it
  double timeout_s = 300;          // longest wait for any rank in any collective, incl. rank 0's validation
  bool overlap = true;             // sum each gradient bucket while backward runs (false: after it)
  double bucket_mb = 4;            // MiB of gradients per all-reduce (GradientSync's buckets)
  void validate() const;           // throws ConfigError naming dist.<key>
};

/// The place of this process in the group, resolved from options and environment.
struct RankInfo {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;              // on this machine: picks the CUDA device
  int local_world_size = 1;        // ranks on this machine (NCCL needs a GPU each)
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;         // 0 in a supervisor's plan: it picks a free port
  std::string source;              // where rank and world size came from ("torchrun variables", ...)
  /// A one-machine group's rendezvous: a c10d file store in the supervisor's private folder
  /// (NMT_STORE_FILE), so that nothing listens on the network; empty: the TCP store at
  /// master_addr:master_port (several machines, torchrun and other launchers).
  std::string store_file;
  /// Where the ranks meet, for messages: "ADDR:PORT", or "the file store PATH".
  std::string rendezvous() const;
  bool distributed() const { return world_size > 1; }
};

/// What a process does: supervise `nproc_per_node` local ranks, or train as one rank.
struct LaunchPlan {
  bool supervise = false;          // start ranks node_rank*nproc .. +nproc-1 and wait for them
  RankInfo rank;                   // when !supervise: this process's rank
};

/// Variable lookup, std::getenv in programs; tests pass their own.
using Environment = std::function<const char*(const char*)>;
Environment process_environment();

/// Reads the launcher's variables and the options. A process started by the supervisor (or by
/// torchrun, Slurm, mpirun) is one rank; a process with nproc_per_node > 1 and no rank variables
/// supervises. Throws ConfigError for contradictions (a rank outside the world, a half-set pair,
/// a world size that differs from nnodes x nproc-per-node), naming the option or variable.
LaunchPlan plan_launch(const DistOptions& options, const Environment& environment);

}  // namespace nmt
