#include "nmt/search/greedy_search.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "nmt/data/tokenizer.h"
#include "nmt/search/penalties.h"
#include "nmt/kernels/top_candidates.h"

namespace nmt {
namespace {

// Each row's best token and its score r + log p in float, equal scores in index order, as beam
// search with k = 1 takes the first of its top 2 (a row whose every token is forbidden: -inf).
// offset (r [rows]) undefined: `scores` already hold r + log p. CPU: one pass per row over float
// values (top_candidates.h; NaN never ranks), no [rows, V] sum or sort, as beam search ranks on the
// CPU for every dtype; other devices: at::topk.
struct BestTokens {
  std::vector<float> scores;
  std::vector<std::int64_t> ids;
};

BestTokens best_tokens(const at::Tensor& scores, const at::Tensor& offset) {
  const std::int64_t rows = scores.size(0), vocab = scores.size(1);
  BestTokens best{std::vector<float>(static_cast<std::size_t>(rows), -std::numeric_limits<float>::infinity()),
                  std::vector<std::int64_t>(static_cast<std::size_t>(rows), 0)};
  if (scores.is_cpu()) {
    const at::Tensor values = scores.to(at::kFloat).contiguous();
    const at::Tensor r = offset.defined() ? offset.to(at::kCPU).contiguous() : at::zeros({rows}, at::kFloat);
    for (std::int64_t i = 0; i < rows; ++i) {
      const Ranked top = top_of_rows(values.data_ptr<float>() + i * vocab, r.data_ptr<float>() + i, 1, vocab, 1);
      if (top.empty()) continue;  // NaN everywhere
      best.scores[static_cast<std::size_t>(i)] = top.front().first;
      best.ids[static_cast<std::size_t>(i)] = top.front().second;
    }
    return best;
  }
  const at::Tensor sums = offset.defined() ? offset.unsqueeze(1) + scores.to(at::kFloat) : scores;
  const auto [top_scores, top_ids] = sums.topk(std::min<std::int64_t>(2, vocab));
  const at::Tensor s = top_scores.select(1, 0).to(at::kCPU).contiguous(), i = top_ids.select(1, 0).to(at::kCPU).contiguous();
  std::copy(s.data_ptr<float>(), s.data_ptr<float>() + rows, best.scores.begin());
  std::copy(i.data_ptr<std::int64_t>(), i.data_ptr<std::int64_t>() + rows, best.ids.begin());
  return best;
}

// One step's choice for the rows `active`: with the constraints, from step()'s log-probabilities
// (r + log p written out, the forbidden ones set to -inf); without, the model's best_step (which
// may choose from its logits) or the same sums ranked here.
struct GreedyStep {
  BestTokens best;
  at::Tensor attention;
  DecoderStatePtr state;
};

GreedyStep greedy_step(const IncrementalDecoder& model, const DecoderState& state, const at::Tensor& previous,
                       const at::Tensor& log_prob, std::int64_t t, const SearchOptions& options,
                       const std::vector<Hypothesis>& hypotheses, const std::vector<std::int64_t>& active) {
  if (constraints_apply(t, options)) {
    StepOutput out = model.step(state, previous);
    // r + log p in float32, as beam search adds them, so that beam 1 reproduces greedy bit for bit.
    at::Tensor candidates = log_prob.unsqueeze(1) + out.log_probs.to(at::kFloat);  // [rows, V]
    std::vector<const std::vector<int>*> histories;
    for (const std::int64_t row : active) histories.push_back(&hypotheses[static_cast<std::size_t>(row)].tokens);
    apply_constraints(candidates, histories, t, options);
    return {best_tokens(candidates, at::Tensor()), std::move(out.attention), std::move(out.state)};
  }
  BestStep out = model.best_step(state, previous, log_prob);
  BestTokens best = out.ids.empty() ? best_tokens(out.log_probs, log_prob)  // the same sums, not written out
                                    : BestTokens{std::move(out.scores), std::move(out.ids)};
  return {std::move(best), std::move(out.attention), std::move(out.state)};
}

}  // namespace

std::vector<Hypothesis> greedy_search(const IncrementalDecoder& model, const at::Tensor& source,
                                      const at::Tensor& source_lengths, const SearchOptions& options) {
  options.validate();
  options.require_attention_if_used(model.has_attention());
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

  DecoderStatePtr state = model.encode(source, lengths);
  std::vector<std::int64_t> active(row_count);  // original row of each state row
  std::iota(active.begin(), active.end(), 0);
  at::Tensor previous = at::full({batch}, SpecialIds::kBos, source.options().dtype(at::kLong));
  at::Tensor log_prob = at::zeros({batch}, source.options().dtype(at::kFloat));  // r of each state row

  for (std::int64_t t = 0; !active.empty(); ++t) {
    GreedyStep chosen = greedy_step(model, *state, previous, log_prob, t, options, hypotheses, active);
    const BestTokens& best = chosen.best;
    const at::Tensor step_attention = options.keep_attention ? chosen.attention.to(at::kCPU) : at::Tensor();

    std::vector<std::int64_t> keep_rows, still_active, next_ids;
    std::vector<float> next_scores;
    for (std::size_t r = 0; r < active.size(); ++r) {
      const auto row = static_cast<std::size_t>(active[r]);
      Hypothesis& h = hypotheses[row];
      const float score = best.scores[r];
      if (std::isinf(score)) continue;  // the constraints forbid every token (or all are NaN): stop, unfinished
      const auto id = static_cast<int>(best.ids[r]);
      h.log_prob = score;
      if (options.keep_attention) attention[row].push_back(step_attention[static_cast<std::int64_t>(r)]);
      if (id == SpecialIds::kEos) {
        h.finished = true;
        continue;
      }
      h.tokens.push_back(id);
      if (static_cast<std::int64_t>(h.tokens.size()) >= limit[row]) continue;  // length limit reached
      keep_rows.push_back(static_cast<std::int64_t>(r));
      still_active.push_back(active[r]);
      next_ids.push_back(id);
      next_scores.push_back(score);
    }
    if (still_active.empty()) break;
    const auto device = previous.device();
    state = still_active.size() != active.size() ? chosen.state->select(at::tensor(keep_rows, at::kLong).to(device))
                                                 : std::move(chosen.state);
    previous = at::tensor(next_ids, at::kLong).to(device);
    log_prob = at::tensor(next_scores, at::kFloat).to(device);
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
