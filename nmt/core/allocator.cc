#include "nmt/core/allocator.h"

#include <cstdlib>  // defines __GLIBC__ on glibc systems: without a libc header first, the test below is always false

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace nmt {

void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_MAX, 0);                  // every block from the heap, none from mmap
  mallopt(M_TRIM_THRESHOLD, 1 << 30);      // do not shrink the heap until 1 GiB is free at its top
  mallopt(M_TOP_PAD, 64 << 20);            // grow it in 64 MiB steps
#endif
}

}  // namespace nmt
