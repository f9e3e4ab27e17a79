// A decoder behind its encode and step alone: every shortcut of the interface (step_logits,
// best_step, ranked_step, output_subset) takes IncrementalDecoder's default, so a search over it
// ranks the written [rows, V] log-probabilities. Tests compare a model's shortcuts against it.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>

#include "nmt/model/incremental_decoder.h"

namespace nmt::test {

class StepsOnly final : public IncrementalDecoder {
 public:
  explicit StepsOnly(const IncrementalDecoder& model) : model_(model) {}
  DecoderStatePtr encode(const at::Tensor& source, const at::Tensor& lengths) const override {
    return model_.encode(source, lengths);
  }
  StepOutput step(const DecoderState& state, const at::Tensor& previous) const override {
    return model_.step(state, previous);
  }
  std::int64_t target_vocab_size() const override { return model_.target_vocab_size(); }
  bool has_attention() const override { return model_.has_attention(); }

 private:
  const IncrementalDecoder& model_;
};

}  // namespace nmt::test
