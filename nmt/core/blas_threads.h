// How many threads the BLAS library under LibTorch uses for one matrix product.
//
// Why: OpenBLAS (the fast BLAS here, /work/shared/PLATFORM.md) runs every product on all cores and
// its threads spin between products. Translation spends about half its time outside products
// (attention, log-softmax, search), on one core, while the other spins. Translating two batches
// at once, each with single-threaded products, uses both cores all the time (Translator's
// workers, docs/search.md): 1.8x the sentences per second measured on 2 cores.
#pragma once

namespace nmt {

/// The BLAS library's thread count, or 0 when it cannot be queried (not OpenBLAS).
int blas_threads();

/// Sets it where the library allows (OpenBLAS); returns false (and does nothing) elsewhere.
bool set_blas_threads(int threads);

/// Single-threaded products for the guard's lifetime, the previous count restored after.
class SingleThreadedBlas {
 public:
  SingleThreadedBlas();
  ~SingleThreadedBlas();
  SingleThreadedBlas(const SingleThreadedBlas&) = delete;
  SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;

 private:
  int previous_;
};

}  // namespace nmt
