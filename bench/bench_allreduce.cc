// What summing gradients costs a data-parallel step: GradientSync::all_reduce of the reference
// model's gradients (ModelConfig{}: 8.3 M floats, in GradientSync's default 4 MiB buckets) between RANKS
// processes of this machine over the loopback (Gloo), one intra-op and one BLAS thread each, as
// nmt-train --dist.nproc-per-node runs them. Prints rank 0's median, minimum and maximum.
// Usage: bench_allreduce [RANKS] [REPEATS]   (default 2 and 30). Results in docs/benchmarks.md.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench/bench_util.h"
#include "nmt/core/blas_threads.h"
#include "nmt/dist/communicator.h"
#include "nmt/dist/gradient_sync.h"
#include "nmt/dist/local_launcher.h"
#include "nmt/model/seq2seq.h"

namespace {


int run_rank(int rank, int world, int port, int repeats) {
  at::set_num_threads(1);
  nmt::set_blas_threads(1);
  nmt::RankInfo place;
  place.rank = rank;
  place.world_size = world;
  place.master_port = port;
  auto comm = nmt::Communicator::connect(place, nmt::DistBackend::gloo, c10::Device(c10::kCPU), 60);
  nmt::Seq2Seq model(nmt::ModelConfig{});
  std::int64_t floats = 0;
  for (auto& p : model->parameters()) {
    p.mutable_grad() = at::randn_like(p);
    floats += p.numel();
  }
  nmt::GradientSync sync(model->parameters());
  std::vector<double> ms;
  for (int i = 0; i < repeats + 3; ++i) {
    comm->barrier("bench");
    nmt::bench::Stopwatch clock;
    sync.all_reduce(*comm);
    if (i >= 3) ms.push_back(clock.seconds() * 1e3);
  }
  if (rank == 0) {
    std::sort(ms.begin(), ms.end());
    std::printf("%d ranks, %lld floats (%.1f MiB) in %zu buckets: median %.1f ms, min %.1f, max %.1f (%d repeats)\n",
                world, static_cast<long long>(floats), static_cast<double>(floats) * 4 / (1 << 20), sync.buckets(),
                ms[ms.size() / 2], ms.front(), ms.back(), repeats);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int world = 2, repeats = 30;
  CLI::App app{"Time of the gradient sum of the reference model over ranks run as threads (Gloo)."};
  app.add_option("world", world, "Ranks")->capture_default_str()->check(CLI::Range(2, 64));
  app.add_option("repeats", repeats, "Timed sums")->capture_default_str()->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  if (world < 2 || repeats < 1) {
    std::fprintf(stderr, "usage: bench_allreduce [RANKS >= 2] [REPEATS >= 1]\n");
    return 2;
  }
  const int port = nmt::find_free_port();
  std::vector<pid_t> children;
  for (int rank = 1; rank < world; ++rank) {  // before any LibTorch thread exists
    const pid_t pid = fork();
    if (pid == 0) _exit(run_rank(rank, world, port, repeats));
    children.push_back(pid);
  }
  const int status = run_rank(0, world, port, repeats);
  for (pid_t pid : children) waitpid(pid, nullptr, 0);
  return status;
}
