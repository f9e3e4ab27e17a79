#include "nmt/core/blas_threads.h"

#include <dlfcn.h>

namespace nmt {
namespace {

// OpenBLAS's own entry points, looked up at run time: LibTorch reaches BLAS through libblas.so.3,
// which may be OpenBLAS or another implementation without them.
using GetThreads = int (*)();
using SetThreads = void (*)(int);

GetThreads get_function() { return reinterpret_cast<GetThreads>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads")); }
SetThreads set_function() { return reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads")); }

}  // namespace

int blas_threads() {
  const GetThreads get = get_function();
  return get != nullptr ? get() : 0;
}

bool set_blas_threads(int threads) {
  const SetThreads set = set_function();
  if (set == nullptr || threads < 1) return false;
  set(threads);
  return true;
}

SingleThreadedBlas::SingleThreadedBlas() : previous_(blas_threads()) {
  if (previous_ > 1) set_blas_threads(1);
}

SingleThreadedBlas::~SingleThreadedBlas() {
  if (previous_ > 1) set_blas_threads(previous_);
}

}  // namespace nmt
