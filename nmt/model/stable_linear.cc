#include "nmt/model/stable_linear.h"

#include <ATen/ATen.h>

namespace nmt {

std::int64_t stable_rows(std::int64_t out_features) { return kSmallProductLimit / std::max<std::int64_t>(out_features, 1) + 1; }

at::Tensor stable_linear(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& bias) {
  const std::int64_t in = input.size(-1), out = weight.size(0);
  const at::Tensor rows = input.reshape({-1, in});
  const std::int64_t n = rows.size(0), needed = stable_rows(out);
  if (n >= needed || !input.device().is_cpu()) return at::linear(input, weight, bias);
  const at::Tensor padded = at::cat({rows, at::zeros({needed - n, in}, rows.options())});
  std::vector<std::int64_t> shape = input.sizes().vec();
  shape.back() = out;
  return at::linear(padded, weight, bias).slice(0, 0, n).reshape(shape);
}

}  // namespace nmt
