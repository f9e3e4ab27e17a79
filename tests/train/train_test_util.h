// What the training tests share: a step checkpoint's parameters by name.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <map>
#include <string>

#include "nmt/model/checkpoint.h"

namespace nmt::test {

/// The parameters of RUN_DIR/checkpoints/step-NNNNNNNN.pt by name.
inline std::map<std::string, at::Tensor> final_parameters(const std::string& run_dir, std::int64_t step) {
  std::string name = std::to_string(step);
  name.insert(0, 8 - name.size(), '0');
  Checkpoint checkpoint = load_checkpoint(run_dir + "/checkpoints/step-" + name + ".pt");
  std::map<std::string, at::Tensor> out;
  for (const auto& p : checkpoint.model->named_parameters()) out[p.key()] = p.value();
  return out;
}

}  // namespace nmt::test
