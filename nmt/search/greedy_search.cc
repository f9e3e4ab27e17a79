#include "nmt/search/greedy_search.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "nmt/data/tokenizer.h"
#include "nmt/search/penalties.h"

namespace nmt {

std::vector<Hypothesis> greedy_search(IncrementalDecoder& model, const at::Tensor& source,
                                      const at::Tensor& source_lengths, const SearchOptions& options) {
  options.validate();
  TORCH_CHECK(source.dim() == 2 && source_lengths.dim() == 1 && source_lengths.size(0) == source.size(0),
              "greedy_search: source must be [batch, src_len] and source_lengths [batch]");
  c10::NoGradGuard no_grad;
  const std::int64_t batch = source.size(0);
  if (batch == 0) return {};
  const at::Tensor lengths = source_lengths.to(at::kCPU).to(at::kLong);
  const auto row_count = static_cast<std::size_t>(batch);
  std::vector<Hypothesis> hypotheses(row_count);
  std::vector<std::int64_t> limit(row_count);
  std::vector<std::vector<at::Tensor>> attention(row_count);
  for (std::size_t i = 0; i < row_count; ++i) limit[i] = options.max_length(lengths[static_cast<std::int64_t>(i)].item<std::int64_t>() - 1);

  DecoderState state = model.encode(source, lengths);
  std::vector<std::int64_t> active(row_count);  // original row of each state row
  std::iota(active.begin(), active.end(), 0);
  at::Tensor previous = at::full({batch}, SpecialIds::kBos, source.options().dtype(at::kLong));
  at::Tensor log_prob = at::zeros({batch}, source.options().dtype(at::kFloat));  // r of each state row
  const std::int64_t top = std::min<std::int64_t>(2, model.target_vocab_size());

  for (std::int64_t t = 0; !active.empty(); ++t) {
    StepOutput out = model.step(state, previous);
    // r + log p in float32, as beam search adds them, so that beam 1 reproduces greedy bit for bit.
    at::Tensor candidates = log_prob.unsqueeze(1) + out.log_probs.to(at::kFloat);  // [rows, V]
    std::vector<const std::vector<int>*> histories;
    for (const std::int64_t row : active) histories.push_back(&hypotheses[static_cast<std::size_t>(row)].tokens);
    apply_constraints(candidates, histories, t, options);
    // The first of the top 2, as beam search's top 2k with k = 1 (same ties).
    const auto [top_scores, top_ids] = candidates.topk(top);
    const at::Tensor best_ids = top_ids.select(1, 0).contiguous(), best_scores = top_scores.select(1, 0).contiguous();
    const at::Tensor ids = best_ids.to(at::kCPU), scores = best_scores.to(at::kCPU);
    const at::Tensor step_attention = options.keep_attention ? out.attention.to(at::kCPU) : at::Tensor();

    std::vector<std::int64_t> keep_rows, still_active;
    for (std::size_t r = 0; r < active.size(); ++r) {
      const auto row = static_cast<std::size_t>(active[r]);
      const auto i = static_cast<std::int64_t>(r);
      Hypothesis& h = hypotheses[row];
      const float score = scores[i].item<float>();
      if (std::isinf(score)) continue;  // the constraints forbid every token: stop, unfinished
      const auto id = static_cast<int>(ids[i].item<std::int64_t>());
      h.log_prob = score;
      if (options.keep_attention) attention[row].push_back(step_attention[i]);
      if (id == SpecialIds::kEos) {
        h.finished = true;
        continue;
      }
      h.tokens.push_back(id);
      if (static_cast<std::int64_t>(h.tokens.size()) >= limit[row]) continue;  // length limit reached
      keep_rows.push_back(i);
      still_active.push_back(active[r]);
    }
    if (still_active.empty()) break;
    if (still_active.size() != active.size()) {
      const at::Tensor keep = at::tensor(keep_rows, at::kLong).to(best_ids.device());
      state = out.state.select(keep);
      previous = best_ids.index_select(0, keep);
      log_prob = best_scores.index_select(0, keep);
    } else {
      state = std::move(out.state);
      previous = best_ids;
      log_prob = best_scores;
    }
    active = std::move(still_active);
  }
  for (std::size_t row = 0; row < row_count; ++row) {
    Hypothesis& h = hypotheses[row];
    h.score = h.log_prob;  // one hypothesis per sentence: nothing to rank, no penalty
    if (options.keep_attention && !attention[row].empty()) {
      // Trim the padding columns of this row.
      h.attention = at::stack(attention[row]).slice(1, 0, lengths[static_cast<std::int64_t>(row)].item<std::int64_t>());
    }
  }
  return hypotheses;
}

}  // namespace nmt
