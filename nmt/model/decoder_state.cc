#include "nmt/model/decoder_state.h"

#include <ATen/ATen.h>

namespace nmt {

DecoderState DecoderState::select(const at::Tensor& indices) const {
  const at::Tensor on_device = indices.to(hidden.device());
  const at::Tensor on_cpu = indices.to(at::kCPU, at::kLong).contiguous();
  DecoderState selected;
  selected.memory = memory;
  selected.keys = keys;
  selected.projected = projected;
  selected.source_rows = source_rows.defined() ? source_rows.index_select(0, on_cpu) : on_cpu.clone();
  selected.mask = mask.index_select(0, on_device);
  selected.hidden = hidden.index_select(1, on_device);
  if (feed.defined()) selected.feed = feed.index_select(0, on_device);
  return selected;
}

}  // namespace nmt
