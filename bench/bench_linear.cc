// The inference product (nmt::stable_linear: packed weight, one fma chain per output) against
// at::linear (BLAS) at the shapes of a search step, single-threaded, as a Translator worker runs
// them, and the int8 product (--precision int8) beside it, with the kernel that runs here.
// Usage: bench_linear [MILLISECONDS_PER_CASE]   (default 300). Results in docs/benchmarks.md.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/GradMode.h>

#include <cstdio>
#include <cstdlib>
#include <functional>

#include <CLI/CLI.hpp>

#include "bench/bench_util.h"
#include "nmt/core/blas_threads.h"
#include "nmt/kernels/kernels.h"

namespace {

// Milliseconds per call: calls repeat until `budget_ms` has passed (after one warm-up call).
double ms_per_call(const std::function<void()>& call, double budget_ms) {
  call();
  nmt::bench::Stopwatch clock;
  int calls = 0;
  do {
    call();
    ++calls;
  } while (clock.seconds() * 1e3 < budget_ms);
  return clock.seconds() * 1e3 / calls;
}

}  // namespace

int main(int argc, char** argv) {
  double budget_ms = 300;
  CLI::App app{"The inference product (PackedLinear) against OpenBLAS at the model's shapes."};
  app.add_option("budget_ms", budget_ms, "Milliseconds of repeats per measurement")->capture_default_str()
      ->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  at::set_num_threads(1);
  const nmt::SingleThreadedBlas single_threaded_blas;
  c10::NoGradGuard no_grad;
  at::manual_seed(0);
  struct Case {
    const char* name;
    std::int64_t in, out;
  };
  // The reference model (E = H = D = A = 256, V = 8000): output layer, GRU input (context half),
  // GRU hidden, readout, attention query.
  const Case cases[] = {{"output layer", 256, 8000}, {"GRU input (context)", 512, 768}, {"GRU hidden", 256, 768},
                        {"readout", 1024, 256}, {"attention query", 256, 256}};
  std::printf("int8 kernel: %s, float kernel: %s\n", nmt::int8_kernel().c_str(), nmt::kernel_capability().c_str());
  std::printf("%-22s %6s %12s %12s %8s %12s %10s\n", "product [rows x in -> out]", "rows", "at::linear", "packed",
              "ratio", "int8", "vs packed");
  for (const Case& c : cases) {
    const at::Tensor w = at::randn({c.out, c.in}) * 0.1, b = at::randn({c.out});
    const nmt::PackedLinear packed(w, b, c10::Device(c10::kCPU));  // packed once, as the inference model packs
    const nmt::PackedLinear int8(w, b, c10::Device(c10::kCPU), nmt::Precision::int8);
    for (const std::int64_t rows : {1, 5, 20, 50, 100, 200, 400, 800}) {
      const at::Tensor x = at::randn({rows, c.in});
      const double blas = ms_per_call([&] { at::linear(x, w, b); }, budget_ms);
      const double ours = ms_per_call([&] { packed(x); }, budget_ms);
      const double quantized = ms_per_call([&] { int8(x); }, budget_ms);
      std::printf("%-22s %6lld %9.3f ms %9.3f ms %7.2fx %9.3f ms %9.2fx   (%lld -> %lld; %.1f vs %.1f GFLOP/s)\n",
                  c.name, static_cast<long long>(rows), blas, ours, blas / ours, quantized, ours / quantized,
                  static_cast<long long>(c.in), static_cast<long long>(c.out),
                  2e-6 * static_cast<double>(rows * c.in * c.out) / blas,
                  2e-6 * static_cast<double>(rows * c.in * c.out) / ours);
    }
  }
  return 0;
}
