#pragma once

#include <c10/core/Device.h>

#include <string>

namespace nmt {

/// "auto" (CUDA when available, else the CPU), "cpu", "cuda" or "cuda:N". Throws ConfigError when
/// CUDA is asked for and absent, or N is out of range.
c10::Device parse_device(const std::string& name);

}  // namespace nmt
