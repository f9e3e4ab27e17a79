#include "nmt/search/forced_decoding.h"

#include <ATen/ATen.h>

#include <algorithm>

#include "nmt/data/tokenizer.h"

namespace nmt {

at::Tensor make_target_batch(const std::vector<const std::vector<int>*>& targets) {
  std::int64_t steps = 0;  // target subwords + EOS of the longest target
  for (const auto* ids : targets) steps = std::max<std::int64_t>(steps, static_cast<std::int64_t>(ids->size()) + 1);
  at::Tensor target = at::full({static_cast<std::int64_t>(targets.size()), steps}, SpecialIds::kPad, at::kLong);
  for (std::size_t r = 0; r < targets.size(); ++r) {
    auto* row = target[static_cast<std::int64_t>(r)].data_ptr<std::int64_t>();
    std::copy(targets[r]->begin(), targets[r]->end(), row);
    row[targets[r]->size()] = SpecialIds::kEos;
  }
  return target;
}

at::Tensor forced_log_probs(const IncrementalDecoder& model, const at::Tensor& source, const at::Tensor& source_lengths,
                            const at::Tensor& target) {
  const std::int64_t rows = target.size(0), steps = target.size(1);
  DecoderStatePtr state = model.encode(source, source_lengths);
  // The decoder reads BOS y_1 .. y_{steps-1}.
  at::Tensor previous = at::full({rows}, SpecialIds::kBos, target.options());
  at::Tensor total = at::zeros({rows}, target.options().dtype(at::kFloat));
  for (std::int64_t t = 0; t < steps; ++t) {
    StepOutput out = model.step(*state, previous);
    const at::Tensor y = target.select(1, t);
    const at::Tensor log_p = out.log_probs.gather(1, y.clamp_min(0).unsqueeze(1)).squeeze(1).to(at::kFloat);
    total = at::where(y.ne(SpecialIds::kPad), total + log_p, total);
    state = std::move(out.state);
    previous = y;
  }
  return total.to(at::kCPU);
}

}  // namespace nmt
