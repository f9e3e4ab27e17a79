#include "nmt/dist/dist_options.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>

#include "nmt/core/decimal_number.h"
#include "nmt/core/error.h"

namespace nmt {
namespace {

// A launcher's variables: rank, world size and (optional) local rank.
struct VariableSet {
  const char* rank;
  const char* size;
  const char* local_rank;
  const char* local_size;
  const char* name;
};

constexpr VariableSet kLaunchers[] = {
    {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "torchrun variables"},
    {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_NTASKS_PER_NODE", "Slurm variables"},
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE",
     "Open MPI variables"},
    {"PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS", "MPICH variables"},
};

// A whole decimal number in [low, high], or ConfigError naming the variable.
int parse_int(const char* text, const char* variable, long low, long high) {
  try {
    return static_cast<int>(parse_decimal_integer(text, variable, low, high));
  } catch (const ConfigError&) {  // one message for "not a number" and "out of range"
    throw ConfigError(std::string("environment variable ") + variable + "=" + quoted_excerpt(text) + " must be a whole number in [" +
                      std::to_string(low) + ", " + std::to_string(high) + "]");
  }
}

// sbatch sets SLURM_PROCID and SLURM_NTASKS in the batch script itself, where nmt-train runs
// alone; they name a rank only inside a step that srun started (SLURM_STEP_ID a step number; the
// batch and extern steps have ids from 0xFFFFFFF0 up).
bool in_srun_step(const Environment& environment) {
  const char* step = environment("SLURM_STEP_ID");
  if (step == nullptr || *step == '\0') return false;
  char* end = nullptr;
  const unsigned long long id = std::strtoull(step, &end, 10);
  return *end == '\0' && id < 0xFFFFFFF0ull;
}

}  // namespace

const EnumNames<DistBackend>& enum_names(DistBackend) {
  static const EnumNames<DistBackend> names(
      "dist.backend", {{DistBackend::automatic, "auto"}, {DistBackend::gloo, "gloo"}, {DistBackend::nccl, "nccl"}});
  return names;
}

void DistOptions::validate() const {
  constexpr int kMaxRanks = 65536;
  require_option(nproc_per_node >= 1 && nproc_per_node <= 1024, "dist.nproc-per-node", "in [1, 1024]",
          std::to_string(nproc_per_node));
  require_option(nnodes >= 1 && nnodes <= kMaxRanks, "dist.nnodes", "in [1, 65536]", std::to_string(nnodes));
  require_option(static_cast<long>(nnodes) * nproc_per_node <= kMaxRanks, "dist.nnodes x dist.nproc-per-node",
          "at most 65536 ranks", std::to_string(static_cast<long>(nnodes) * nproc_per_node));
  require_option(node_rank >= 0 && node_rank < nnodes, "dist.node-rank", "in [0, dist.nnodes - 1] = [0, " +
          std::to_string(nnodes - 1) + "]", std::to_string(node_rank));
  require_option(master_port >= 0 && master_port <= 65535, "dist.master-port", "in [1, 65535] (0: MASTER_PORT or 29500)",
          std::to_string(master_port));
  require_option(master_addr.find_first_of(" \t\n") == std::string::npos, "dist.master-addr", "a host name or address",
          "'" + master_addr + "'");
  require_option(std::isfinite(timeout_s) && timeout_s >= 1 && timeout_s <= 7 * 24 * 3600.0, "dist.timeout",
          "in [1, 604800] seconds", std::to_string(timeout_s));
  std::ostringstream mb;
  mb << bucket_mb;
  require_option(std::isfinite(bucket_mb) && bucket_mb > 0 && bucket_mb <= 1024, "dist.bucket-mb", "in (0, 1024] MiB",
          mb.str());
}

std::string RankInfo::rendezvous() const {
  return store_file.empty() ? master_addr + ":" + std::to_string(master_port) : "the file store " + store_file;
}

Environment process_environment() {
  return [](const char* name) { return static_cast<const char*>(std::getenv(name)); };
}

namespace {

// The rendezvous point into `r`: options first, then MASTER_ADDR / MASTER_PORT, then this machine.
// A variable that is set but blank is a mistake in a launch script: said at once, not after the
// whole rendezvous timeout. Returns whether a port was given (option or variable).
bool read_rendezvous(const DistOptions& options, const Environment& environment, bool group, RankInfo& r) {
  struct Rendezvous {
    const char* variable;
    const char* what;
    bool read;  // no option gives it
  };
  for (const Rendezvous& point : {Rendezvous{"MASTER_ADDR", "host", options.master_addr.empty()},
                                  Rendezvous{"MASTER_PORT", "port", options.master_port == 0}}) {
    const char* value = environment(point.variable);
    if (group && point.read && value != nullptr && std::string(value).find_first_not_of(" \t\r\n") == std::string::npos) {
      throw ConfigError(std::string("environment variable ") + point.variable + " is set but blank: give rank 0's " +
                        point.what + " or unset it");
    }
  }
  if (!options.master_addr.empty()) {
    r.master_addr = options.master_addr;
  } else if (const char* addr = environment("MASTER_ADDR"); addr != nullptr && *addr != '\0') {
    r.master_addr = addr;
  } else if (options.nnodes > 1) {
    throw ConfigError("dist.master-addr (or MASTER_ADDR) must name rank 0's host when dist.nnodes is " +
                      std::to_string(options.nnodes));
  }
  if (options.master_port != 0) {
    r.master_port = options.master_port;
  } else if (const char* port = environment("MASTER_PORT"); port != nullptr && *port != '\0') {
    r.master_port = parse_int(port, "MASTER_PORT", 1, 65535);
  } else {
    return false;
  }
  return true;
}

// This process's rank from the first launcher whose variables are set (into `r`); false when none is.
bool read_launcher_rank(const DistOptions& options, const Environment& environment, RankInfo& r) {
  const int asked_world = options.nnodes * options.nproc_per_node;
  for (const VariableSet& set : kLaunchers) {
    const char* rank = environment(set.rank);
    const char* size = environment(set.size);
    if (rank == nullptr && size == nullptr) continue;
    if (std::string(set.rank) == "SLURM_PROCID" && !in_srun_step(environment)) continue;
    if (rank == nullptr || size == nullptr) {
      throw ConfigError(std::string("environment variable ") + (rank ? set.size : set.rank) + " is not set but " +
                        (rank ? set.rank : set.size) + " is: set both, or neither");
    }
    r.world_size = parse_int(size, set.size, 1, 65536);
    r.rank = parse_int(rank, set.rank, 0, r.world_size - 1);
    const char* local = environment(set.local_rank);
    r.local_rank = local != nullptr ? parse_int(local, set.local_rank, 0, 65535) : r.rank % options.nproc_per_node;
    // Slurm writes SLURM_NTASKS_PER_NODE as "2" or "2(x3)": the count comes first.
    const char* local_size = environment(set.local_size);
    r.local_world_size = local_size != nullptr && std::isdigit(static_cast<unsigned char>(*local_size))
                             ? static_cast<int>(std::strtol(local_size, nullptr, 10))
                             : options.nproc_per_node;
    r.local_world_size = std::max(r.local_world_size, r.local_rank + 1);
    r.source = set.name;
    if (const char* file = environment("NMT_STORE_FILE"); file != nullptr && *file != '\0') r.store_file = file;
    if (asked_world > 1 && asked_world != r.world_size) {
      throw ConfigError("dist.nnodes x dist.nproc-per-node = " + std::to_string(asked_world) + " ranks, but " +
                        set.size + "=" + size + " (" + set.name + "): leave the options out under a launcher");
    }
    return true;
  }
  return false;
}

}  // namespace

LaunchPlan plan_launch(const DistOptions& options, const Environment& environment) {
  options.validate();
  LaunchPlan plan;
  RankInfo& r = plan.rank;
  bool launched = false;  // a launcher's variables name this process's rank
  for (const VariableSet& set : kLaunchers) launched = launched || environment(set.rank) != nullptr;
  const bool group = launched || options.nnodes > 1 || options.nproc_per_node > 1;
  const bool port_given = read_rendezvous(options, environment, group, r);
  if (read_launcher_rank(options, environment, r)) return plan;
  if (options.nproc_per_node > 1 || options.nnodes > 1) {
    plan.supervise = true;
    // One machine and no port asked for: the supervisor takes a free one (two runs side by side).
    if (!port_given && options.nnodes == 1) r.master_port = 0;
    r.world_size = options.nnodes * options.nproc_per_node;
    r.local_world_size = options.nproc_per_node;
    r.rank = options.node_rank * options.nproc_per_node;
    r.source = "options";
    return plan;
  }
  r.source = "one process";
  return plan;
}

}  // namespace nmt
