#include "nmt/model/decoder_state.h"

#include <ATen/ATen.h>

namespace nmt {

DecoderState DecoderState::select(const at::Tensor& indices) const {
  const at::Tensor on_device = indices.to(hidden.device());
  DecoderState selected;
  selected.memory = memory.index_select(0, on_device);
  selected.keys = keys.index_select(0, on_device);
  selected.mask = mask.index_select(0, on_device);
  selected.hidden = hidden.index_select(1, on_device);
  if (feed.defined()) selected.feed = feed.index_select(0, on_device);
  return selected;
}

}  // namespace nmt
