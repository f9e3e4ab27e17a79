// Checks the BLAS LibTorch calls: GFLOP/s of a 1024x1024 float matmul at 1 intra-op thread.
// About 200 GFLOP/s with OpenBLAS (pthread) on a 2-core AVX-512 machine; about 4 with the
// reference BLAS (docs/benchmarks.md). Usage: bench_matmul [SIZE] [REPEATS]
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <cstdio>
#include <cstdlib>

#include <CLI/CLI.hpp>

#include "bench/bench_util.h"

int main(int argc, char** argv) {
  std::int64_t n = 1024;
  int repeats = 20;
  CLI::App app{"GFLOP/s of an n x n float matrix product (the BLAS LibTorch runs)."};
  app.add_option("n", n, "Matrix size")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("repeats", repeats, "Timed products")->capture_default_str()->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  at::manual_seed(0);
  const auto a = at::randn({n, n});
  const auto b = at::randn({n, n});
  at::mm(a, b);  // warm-up
  nmt::bench::Stopwatch clock;
  for (int i = 0; i < repeats; ++i) at::mm(a, b);
  const double seconds = clock.seconds();
  const double gflops = 2.0 * static_cast<double>(n * n * n) * repeats / seconds / 1e9;
  std::printf("matmul %lldx%lld float, %d intra-op thread(s): %.1f GFLOP/s\n", static_cast<long long>(n),
              static_cast<long long>(n), at::get_num_threads(), gflops);
  return 0;
}
