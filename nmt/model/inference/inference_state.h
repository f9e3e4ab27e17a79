// The inference model's decoder state (search sees it only as a DecoderState: incremental_decoder.h).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

#include "nmt/model/incremental_decoder.h"

namespace nmt {

/// Everything that changes per batch; the inference model itself stays read-only.
struct InferenceState final : DecoderState {
  at::Tensor memory;       // [sources, src_len, 2H] encoder states h_j, one row per source sentence
  at::Tensor keys;         // [sources, src_len, K]  attention keys precomputed from memory;
                           //   undefined without attention
  at::Tensor projected;    // [sources, src_len, P]  W_c h_j for the weight blocks W_c that a step
                           //   applies to the context c_t (docs/model.md, "Inference");
                           //   [sources, P] W_c c without attention (the fixed context)
  at::Tensor keys_scales;       // [sources, src_len] float when keys are int8 positions (kernels.h,
  at::Tensor projected_scales;  //   "int8 positions"; --precision int8's memory group), else undefined;
                                //   projected_scales likewise for projected
  at::Tensor source_rows;  // [batch] int64 on the CPU: the sources row of each decoder row;
                           //   undefined: row i uses row i (sources = batch), as encode() returns it
  at::Tensor mask;         // [batch, src_len]     bool, true at real source positions
  at::Tensor hidden;       // [layers, batch, D]   decoder GRU state
  at::Tensor feed;         // [batch, R]           Luong input feeding (r_{t-1}); undefined in Bahdanau style
  std::int64_t steps = 0;  // decoder steps taken: the next step is t = steps (local-m's and local-p-offset's centre);
                           //   the same for every row (search steps all its rows together)

  std::int64_t batch_size() const override { return hidden.size(1); }
  /// Memory, keys and projections are not copied (they are the same for all beams of a sentence
  /// and never change): only the row index moves, with the per-row state (mask, hidden, feed).
  DecoderStatePtr select(const at::Tensor& indices) const override;
};

/// `state` as the inference model's own; a state of another model is a logic error.
const InferenceState& as_inference_state(const DecoderState& state);

}  // namespace nmt
