#pragma once

#include <c10/core/Device.h>

#include <string>

namespace nmt {

/// "auto" (CUDA when available, else the CPU), "cpu", "cuda" or "cuda:N". Throws ConfigError when
/// CUDA is asked for and absent, or N is out of range. `cpu_only_work` (int8 decoding, which runs on
/// the CPU alone) makes "auto" the CPU; an explicit CUDA device stays, for the caller to refuse.
c10::Device parse_device(const std::string& name, bool cpu_only_work = false);

}  // namespace nmt
