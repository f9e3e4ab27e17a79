#include "nmt/model/incremental_decoder.h"

#include <ATen/ATen.h>

#include <utility>

namespace nmt {

std::shared_ptr<const OutputSubset> IncrementalDecoder::output_subset(const at::Tensor& pieces) const {
  return std::make_shared<OutputSubset>(pieces);
}

StepLogits IncrementalDecoder::step_logits(const DecoderState& state, const at::Tensor& previous_tokens,
                                           const OutputSubset& subset) const {
  StepOutput out = step(state, previous_tokens);
  return {out.log_probs.index_select(1, subset.pieces().to(out.log_probs.device())), std::move(out.attention),
          std::move(out.state)};
}

BestStep IncrementalDecoder::best_step(const DecoderState& state, const at::Tensor& previous_tokens,
                                       const at::Tensor& /*offset*/) const {
  StepOutput out = step(state, previous_tokens);
  return {std::move(out.log_probs), {}, {}, std::move(out.attention), std::move(out.state)};
}

RankedStep IncrementalDecoder::ranked_step(const DecoderState& state, const at::Tensor& previous_tokens,
                                           const at::Tensor& /*offset*/,
                                           const std::vector<std::int64_t>& /*group_sizes*/,
                                           std::int64_t /*count*/) const {
  StepOutput out = step(state, previous_tokens);
  return {std::move(out.log_probs), {}, std::move(out.attention), std::move(out.state)};
}

}  // namespace nmt
