#include "nmt/core/device.h"

#include <torch/cuda.h>

#include "nmt/core/error.h"

namespace nmt {

c10::Device parse_device(const std::string& name, bool cpu_only_work) {
  if (name == "auto") {
    return torch::cuda::is_available() && !cpu_only_work ? c10::Device(c10::kCUDA, 0) : c10::Device(c10::kCPU);
  }
  if (name == "cpu") return c10::Device(c10::kCPU);
  if (name == "cuda" || name.rfind("cuda:", 0) == 0) {
    std::int64_t index = 0;
    if (name != "cuda") {  // "cuda:" names no device
      const std::string digits = name.substr(5);
      if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 3) {
        throw ConfigError("device '" + name + "': expected cuda:N with a device number N");
      }
      index = std::stoll(digits);
    }
    if (!torch::cuda::is_available()) {
      throw ConfigError("device '" + name + "': CUDA is not available (no GPU visible, or LibTorch built without CUDA)");
    }
    if (index >= static_cast<std::int64_t>(torch::cuda::device_count())) {
      throw ConfigError("device '" + name + "': only " + std::to_string(torch::cuda::device_count()) +
                        " CUDA device(s) visible");
    }
    return c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(index));
  }
  throw ConfigError("unknown device '" + name + "' (expected auto, cpu, cuda or cuda:N)");
}

}  // namespace nmt
