// Heap settings for programs that allocate the same large tensors over and over (training steps,
// search steps).
#pragma once

namespace nmt {

/// Keeps freed memory in the process instead of returning it to the kernel after every tensor.
/// glibc serves blocks above its mmap threshold (at most 32 MiB) with a fresh mmap and unmaps them
/// on free, so each step's [tokens, vocab] tensors (64 MiB at 2000 tokens x 8000 pieces) cost page
/// faults and zeroing again: 60,000 page faults per training step of the reference configuration
/// (docs/benchmarks.md).
/// The price: the process keeps its peak heap until it exits. No effect where the C library is not
/// glibc. Call once at start, before the large allocations.
void keep_freed_memory();

}  // namespace nmt
