// Where a process's rank comes from: launcher variables, options, and their contradictions.
#include "nmt/dist/dist_options.h"

#include <cmath>
#include <map>
#include <string>

#include "nmt/core/error.h"
#include "tests/test_util.h"

namespace nmt {
namespace {

Environment fake(std::map<std::string, std::string> variables) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(variables));
  return [shared](const char* name) -> const char* {
    const auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}

TEST(PlanLaunch, WithoutVariablesOrOptionsItIsOneProcess) {
  const LaunchPlan plan = plan_launch(DistOptions{}, fake({}));
  EXPECT_FALSE(plan.supervise);
  EXPECT_FALSE(plan.rank.distributed());
  EXPECT_EQ(plan.rank.rank, 0);
  EXPECT_EQ(plan.rank.world_size, 1);
}

TEST(PlanLaunch, TorchrunVariablesMakeARank) {
  const LaunchPlan plan = plan_launch(
      DistOptions{}, fake({{"RANK", "3"}, {"WORLD_SIZE", "4"}, {"LOCAL_RANK", "1"}, {"MASTER_ADDR", "node7"},
                           {"MASTER_PORT", "1234"}}));
  EXPECT_FALSE(plan.supervise);
  EXPECT_EQ(plan.rank.rank, 3);
  EXPECT_EQ(plan.rank.world_size, 4);
  EXPECT_EQ(plan.rank.local_rank, 1);
  EXPECT_EQ(plan.rank.local_world_size, 2);  // without LOCAL_WORLD_SIZE: at least local rank + 1
  EXPECT_EQ(plan.rank.master_addr, "node7");
  EXPECT_EQ(plan.rank.master_port, 1234);
  EXPECT_EQ(plan.rank.source, "torchrun variables");
}

TEST(PlanLaunch, SlurmOpenMpiAndMpichVariablesAreReadInThatOrder) {
  EXPECT_EQ(plan_launch(DistOptions{}, fake({{"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "2"}, {"SLURM_LOCALID", "1"},
                                             {"SLURM_STEP_ID", "0"}}))
                .rank.source,
            "Slurm variables");
  // An sbatch script's own process (no step, or the batch step) trains alone.
  EXPECT_FALSE(plan_launch(DistOptions{}, fake({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "4"}})).rank.distributed());
  EXPECT_FALSE(plan_launch(DistOptions{}, fake({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "4"},
                                                {"SLURM_STEP_ID", "4294967294"}}))
                   .rank.distributed());
  const LaunchPlan mpi = plan_launch(DistOptions{}, fake({{"OMPI_COMM_WORLD_RANK", "2"}, {"OMPI_COMM_WORLD_SIZE", "3"}}));
  EXPECT_EQ(mpi.rank.rank, 2);
  EXPECT_EQ(mpi.rank.local_rank, 0);  // without a local rank: rank modulo nproc-per-node (1)
  EXPECT_EQ(mpi.rank.source, "Open MPI variables");
  EXPECT_EQ(plan_launch(DistOptions{}, fake({{"PMI_RANK", "0"}, {"PMI_SIZE", "2"}})).rank.source, "MPICH variables");
  // torchrun's variables win over Slurm's (torchrun inside an allocation).
  const LaunchPlan both = plan_launch(
      DistOptions{}, fake({{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "8"},
                           {"SLURM_STEP_ID", "3"}}));
  EXPECT_EQ(both.rank.world_size, 2);
  EXPECT_EQ(both.rank.rank, 1);
}

TEST(PlanLaunch, RanksOnThisMachineComeFromTheLauncher) {
  EXPECT_EQ(plan_launch(DistOptions{}, fake({{"RANK", "0"}, {"WORLD_SIZE", "8"}, {"LOCAL_WORLD_SIZE", "4"}}))
                .rank.local_world_size,
            4);
  EXPECT_EQ(plan_launch(DistOptions{}, fake({{"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "6"}, {"SLURM_LOCALID", "1"},
                                             {"SLURM_NTASKS_PER_NODE", "2(x3)"}, {"SLURM_STEP_ID", "0"}}))
                .rank.local_world_size,
            2);
  DistOptions options;
  options.nproc_per_node = 3;
  EXPECT_EQ(plan_launch(options, fake({})).rank.local_world_size, 3);
}

TEST(PlanLaunch, OptionsWinOverMasterVariables) {
  DistOptions options;
  options.master_addr = "10.0.0.1";
  options.master_port = 4000;
  const LaunchPlan plan = plan_launch(
      options, fake({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "other"}, {"MASTER_PORT", "5000"}}));
  EXPECT_EQ(plan.rank.master_addr, "10.0.0.1");
  EXPECT_EQ(plan.rank.master_port, 4000);
}

TEST(PlanLaunch, NprocPerNodeSupervisesWithAFreePortOnOneMachine) {
  DistOptions options;
  options.nproc_per_node = 3;
  const LaunchPlan plan = plan_launch(options, fake({}));
  EXPECT_TRUE(plan.supervise);
  EXPECT_EQ(plan.rank.world_size, 3);
  EXPECT_EQ(plan.rank.rank, 0);
  EXPECT_EQ(plan.rank.master_port, 0);  // the supervisor picks one
  EXPECT_EQ(plan.rank.master_addr, "127.0.0.1");
  // A rank the supervisor started carries torchrun's variables: it trains, whatever the option says.
  const LaunchPlan child =
      plan_launch(options, fake({{"RANK", "2"}, {"WORLD_SIZE", "3"}, {"LOCAL_RANK", "2"}, {"MASTER_PORT", "4321"}}));
  EXPECT_FALSE(child.supervise);
  EXPECT_EQ(child.rank.rank, 2);
  EXPECT_EQ(child.rank.master_port, 4321);
}

TEST(PlanLaunch, SeveralMachinesNeedTheMasterAndNumberTheirRanks) {
  DistOptions options;
  options.nproc_per_node = 2;
  options.nnodes = 3;
  options.node_rank = 2;
  EXPECT_THROW_WITH(plan_launch(options, fake({})), ConfigError, "dist.master-addr (or MASTER_ADDR)", "3");
  options.master_addr = "head";
  const LaunchPlan plan = plan_launch(options, fake({}));
  EXPECT_TRUE(plan.supervise);
  EXPECT_EQ(plan.rank.world_size, 6);
  EXPECT_EQ(plan.rank.rank, 4);          // this machine's first rank
  EXPECT_EQ(plan.rank.master_port, 29500);  // every machine must agree: the default, not a free one
}

TEST(PlanLaunch, ContradictionsAreOneLineNamingTheVariableOrOption) {
  EXPECT_THROW_WITH(plan_launch(DistOptions{}, fake({{"RANK", "0"}})), ConfigError, "WORLD_SIZE is not set but RANK is");
  EXPECT_THROW_WITH(plan_launch(DistOptions{}, fake({{"RANK", "2"}, {"WORLD_SIZE", "2"}})), ConfigError, "RANK='2'",
                    "[0, 1]");
  EXPECT_THROW_WITH(plan_launch(DistOptions{}, fake({{"RANK", "x"}, {"WORLD_SIZE", "2"}})), ConfigError, "RANK='x'");
  EXPECT_THROW_WITH(plan_launch(DistOptions{}, fake({{"RANK", "0"}, {"WORLD_SIZE", "0"}})), ConfigError, "WORLD_SIZE='0'");
  EXPECT_THROW_WITH(plan_launch(DistOptions{}, fake({{"MASTER_PORT", "70000"}})), ConfigError, "MASTER_PORT='70000'");
  DistOptions options;
  options.nproc_per_node = 2;
  EXPECT_THROW_WITH(plan_launch(options, fake({{"RANK", "0"}, {"WORLD_SIZE", "4"}})), ConfigError,
                    "= 2 ranks, but WORLD_SIZE=4");
}

TEST(DistOptions, ValidationNamesTheOption) {
  DistOptions o;
  o.nproc_per_node = 0;
  EXPECT_THROW_WITH(o.validate(), ConfigError, "dist.nproc-per-node must be in [1, 1024], got 0");
  o = DistOptions{};
  o.nnodes = 2;
  o.node_rank = 2;
  EXPECT_THROW_WITH(o.validate(), ConfigError, "dist.node-rank must be in [0, dist.nnodes - 1] = [0, 1], got 2");
  o = DistOptions{};
  o.master_port = 65536;
  EXPECT_THROW_WITH(o.validate(), ConfigError, "dist.master-port");
  o = DistOptions{};
  o.timeout_s = 0;
  EXPECT_THROW_WITH(o.validate(), ConfigError, "dist.timeout");
  o.timeout_s = std::nan("");
  EXPECT_THROW_WITH(o.validate(), ConfigError, "dist.timeout");
  o = DistOptions{};
  o.bucket_mb = 0;
  EXPECT_THROW_WITH(o.validate(), ConfigError, "dist.bucket-mb must be in (0, 1024] MiB, got 0");
  o.bucket_mb = std::nan("");
  EXPECT_THROW_WITH(o.validate(), ConfigError, "dist.bucket-mb");
  o.bucket_mb = 0.001;
  EXPECT_NO_THROW(o.validate());
  EXPECT_THROW_WITH(parse_enum<DistBackend>("mpi"), ConfigError, "unknown dist.backend 'mpi' (expected auto, gloo or nccl)");
  EXPECT_EQ(parse_enum<DistBackend>("nccl"), DistBackend::nccl);
}

// A blank MASTER_ADDR used to wait out the whole rendezvous timeout before saying anything.
TEST(PlanLaunch, BlankRendezvousVariablesAreRefusedAtOnce) {
  EXPECT_THROW_WITH(plan_launch(DistOptions{}, fake({{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", " "}})),
                    ConfigError, "environment variable MASTER_ADDR is set but blank: give rank 0's host or unset it");
  EXPECT_THROW_WITH(plan_launch(DistOptions{}, fake({{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"MASTER_PORT", ""}})),
                    ConfigError, "environment variable MASTER_PORT is set but blank: give rank 0's port or unset it");
  DistOptions given;  // the options win, so the blank variables are never read
  given.master_addr = "node1";
  given.master_port = 4000;
  const LaunchPlan plan =
      plan_launch(given, fake({{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", ""}, {"MASTER_PORT", ""}}));
  EXPECT_EQ(plan.rank.master_addr, "node1");
  EXPECT_THROW_WITH(plan_launch(DistOptions{}, fake({{"RANK", "1"}, {"WORLD_SIZE", std::string(5000, '9')}})),
                    ConfigError, "WORLD_SIZE='9999", "(5000 bytes) must be a whole number");
}

}  // namespace
}  // namespace nmt
