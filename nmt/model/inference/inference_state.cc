#include "nmt/model/inference/inference_state.h"

#include <ATen/ATen.h>

#include <memory>
#include <stdexcept>

namespace nmt {

DecoderStatePtr InferenceState::select(const at::Tensor& indices) const {
  const at::Tensor on_device = indices.to(hidden.device());
  const at::Tensor on_cpu = indices.to(at::kCPU, at::kLong).contiguous();
  auto selected = std::make_shared<InferenceState>();
  selected->memory = memory;
  selected->keys = keys;
  selected->projected = projected;
  selected->keys_scales = keys_scales;
  selected->projected_scales = projected_scales;
  selected->source_rows = source_rows.defined() ? source_rows.index_select(0, on_cpu) : on_cpu.clone();
  selected->mask = mask.index_select(0, on_device);
  selected->hidden = hidden.index_select(1, on_device);
  if (feed.defined()) selected->feed = feed.index_select(0, on_device);
  selected->steps = steps;
  return selected;
}

const InferenceState& as_inference_state(const DecoderState& state) {
  const auto* own = dynamic_cast<const InferenceState*>(&state);
  if (own == nullptr) throw std::logic_error("inference model: stepped with a state it did not make");
  return *own;
}

}  // namespace nmt
