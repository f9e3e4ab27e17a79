// LibTorch's exception messages, read back as our one-line errors. In libnmt's LibTorch part:
// error.h is in the part that the programs without LibTorch link (docs/architecture.md).
#pragma once

#include <exception>
#include <string>

namespace nmt {

/// The first line of `error`'s message; for LibTorch's c10::Error, without its backtrace. LibTorch
/// reports run over many lines (a backtrace, advice); ours are one line.
std::string first_line(const std::exception& error);

/// first_line(error) without the location of a LibTorch check: "[enforce fail at alloc_cpu.cpp:75]
/// err == 0. DefaultCPUAllocator: not enough memory: ..." gives "DefaultCPUAllocator: not enough
/// memory: ...". The one place that reads c10's enforce format (tests/core pin it).
std::string torch_error_reason(const std::exception& error);

}  // namespace nmt
