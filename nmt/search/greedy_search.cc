#include "nmt/search/greedy_search.h"

#include <ATen/ATen.h>
#include <torch/types.h>

#include <cmath>
#include <limits>

#include "nmt/core/error.h"
#include "nmt/data/tokenizer.h"

namespace nmt {

void SearchOptions::validate() const {
  if (!(max_length_a >= 0) || !std::isfinite(max_length_a)) {
    throw ConfigError("search max length a must be >= 0, got " + std::to_string(max_length_a));
  }
  if (max_length_b < 0) throw ConfigError("search max length b must be >= 0, got " + std::to_string(max_length_b));
  if (min_length < 0) throw ConfigError("search min length must be >= 0, got " + std::to_string(min_length));
}

std::int64_t SearchOptions::max_length(std::int64_t source_length) const {
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(max_length_a * static_cast<double>(source_length))) +
                                       max_length_b);
}

std::vector<Hypothesis> greedy_search(IncrementalDecoder& model, const at::Tensor& source,
                                      const at::Tensor& source_lengths, const SearchOptions& options) {
  options.validate();
  torch::NoGradGuard no_grad;
  const std::int64_t batch = source.size(0);
  const at::Tensor lengths = source_lengths.to(at::kCPU).to(at::kLong);
  std::vector<Hypothesis> hypotheses(static_cast<std::size_t>(batch));
  std::vector<std::int64_t> limit(static_cast<std::size_t>(batch));
  std::vector<std::vector<at::Tensor>> attention(static_cast<std::size_t>(batch));
  for (std::int64_t i = 0; i < batch; ++i) limit[static_cast<std::size_t>(i)] = options.max_length(lengths[i].item<std::int64_t>() - 1);

  DecoderState state = model.encode(source, lengths);
  std::vector<std::int64_t> active(static_cast<std::size_t>(batch));  // original row of each state row
  for (std::int64_t i = 0; i < batch; ++i) active[static_cast<std::size_t>(i)] = i;
  at::Tensor previous = at::full({batch}, SpecialIds::kBos, source.options().dtype(at::kLong));

  for (std::int64_t t = 0; !active.empty(); ++t) {
    StepOutput out = model.step(state, previous);
    at::Tensor log_probs = out.log_probs;
    if (t < options.min_length) log_probs.select(1, SpecialIds::kEos).fill_(-std::numeric_limits<float>::infinity());
    const auto [best_scores, best_ids] = log_probs.max(/*dim=*/1);
    const at::Tensor ids = best_ids.to(at::kCPU), scores = best_scores.to(at::kCPU).to(at::kDouble);
    const at::Tensor step_attention = options.keep_attention ? out.attention.to(at::kCPU) : at::Tensor();

    std::vector<std::int64_t> keep_rows, still_active;
    for (std::size_t r = 0; r < active.size(); ++r) {
      const auto row = static_cast<std::size_t>(active[r]);
      Hypothesis& h = hypotheses[row];
      const auto id = static_cast<int>(ids[static_cast<std::int64_t>(r)].item<std::int64_t>());
      h.score += scores[static_cast<std::int64_t>(r)].item<double>();
      if (options.keep_attention) attention[row].push_back(step_attention[static_cast<std::int64_t>(r)]);
      if (id == SpecialIds::kEos) {
        h.finished = true;
        continue;
      }
      h.tokens.push_back(id);
      if (static_cast<std::int64_t>(h.tokens.size()) >= limit[row]) continue;  // length limit reached
      keep_rows.push_back(static_cast<std::int64_t>(r));
      still_active.push_back(active[r]);
    }
    if (still_active.empty()) break;
    const at::Tensor keep = at::tensor(keep_rows, at::kLong);
    if (still_active.size() != active.size()) {
      state = out.state.select(keep);
      previous = best_ids.index_select(0, keep.to(best_ids.device()));
    } else {
      state = std::move(out.state);
      previous = best_ids;
    }
    active = std::move(still_active);
  }
  if (options.keep_attention) {
    for (std::size_t row = 0; row < hypotheses.size(); ++row) {
      hypotheses[row].attention = at::stack(attention[row]);
      // Trim the padding columns of this row.
      hypotheses[row].attention = hypotheses[row].attention.slice(1, 0, lengths[static_cast<std::int64_t>(row)].item<std::int64_t>());
    }
  }
  return hypotheses;
}

}  // namespace nmt
