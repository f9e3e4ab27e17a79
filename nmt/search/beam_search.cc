#include "nmt/search/beam_search.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <algorithm>
#include <limits>
#include <map>

#include "nmt/data/tokenizer.h"
#include "nmt/search/penalties.h"
#include "nmt/kernels/top_candidates.h"

namespace nmt {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// A hypothesis taken out of the beam: ended with EOS, or stopped at the length limit.
struct Final {
  std::vector<int> tokens;  // without EOS
  float log_prob = 0;       // r
  double score = 0;         // s = r / lp(|Y|) + cp
  bool finished = false;
  std::int64_t step = 0;    // the step that gave its last token (or EOS)
  std::int64_t row = 0;     // its parent's row in that step's batch (start of the back-pointer path)
  std::size_t sentence = 0;
  std::int64_t length() const { return static_cast<std::int64_t>(tokens.size()) + (finished ? 1 : 0); }  // |Y|
};

struct Sentence {
  std::int64_t source_length = 0;      // m_i: real source positions, EOS included
  std::int64_t limit = 0;              // L_i: the most tokens a hypothesis may hold
  std::vector<std::vector<int>> live;  // tokens of the live hypotheses in rank order = their batch rows
  std::vector<Final> finished, unfinished;
};

// A candidate that becomes a live hypothesis of the next step.
struct Extension {
  std::int64_t parent;  // row in this step's batch
  std::size_t local;    // the parent among its sentence's live hypotheses
  int token;
  float log_prob;       // r of the extended hypothesis
};

// The rows of the next step's batch.
struct NextBatch {
  std::vector<std::int64_t> parents;  // row in this step's batch of each new row
  std::vector<std::int64_t> tokens;   // its last token, the next step's input
  std::vector<float> log_probs;       // its r
};

class BeamSearch {
 public:
  BeamSearch(const IncrementalDecoder& model, const SearchOptions& options)
      : model_(model), options_(options), vocab_(model.target_vocab_size()) {}
  std::vector<std::vector<Hypothesis>> run(const at::Tensor& source, const at::Tensor& lengths);

 private:
  RankedStep step_and_rank(const DecoderState& state, const at::Tensor& previous, const at::Tensor& log_prob,
                           std::int64_t t) const;
  std::vector<Ranked> top_candidates(const at::Tensor& candidates) const;
  std::vector<Ranked> top_candidates_of_sums(const at::Tensor& log_probs, const at::Tensor& log_prob) const;
  std::vector<Extension> walk(std::size_t sentence, const Ranked& ranked, std::int64_t offset, std::int64_t step,
                              std::vector<Final>& finals) const;
  void score(std::vector<Final>& finals, const at::Tensor& coverage) const;
  Final at_limit_final(std::size_t sentence, const Extension& e, std::int64_t step) const;
  bool done(const Sentence& sentence, const std::vector<Extension>& next) const;
  NextBatch advance(const std::vector<std::vector<Extension>>& next, const std::vector<bool>& finished_now);
  std::vector<const Final*> best(const Sentence& sentence) const;
  std::vector<at::Tensor> attention_of(const std::vector<const Final*>& finals) const;
  std::vector<std::vector<Hypothesis>> results() const;

  const IncrementalDecoder& model_;
  const SearchOptions& options_;
  const std::int64_t vocab_;
  std::vector<Sentence> sentences_;
  std::vector<std::size_t> active_;                  // sentences in the batch, in row order
  std::vector<at::Tensor> attention_;                // keep_attention: a_t [rows_t, src_len] of each step
  std::vector<std::vector<std::int64_t>> parents_;   // keep_attention: row in step t of each row of step t+1
};

// Per sentence, the top min(2k, live_i * V) of its live_i * V candidates (its rows are adjacent),
// best first, equal values in index order: what the sentence alone gives, whatever else is in
// the batch. On the CPU one pass per sentence (top_of_rows); elsewhere at::topk, with sentences
// of the same live count sharing one call over rows of exactly that width.
std::vector<Ranked> BeamSearch::top_candidates(const at::Tensor& candidates) const {
  TORCH_CHECK(candidates.size(1) == vocab_, "beam_search: the model's log-probabilities have ", candidates.size(1),
              " columns, its target vocabulary ", vocab_, " words");
  std::vector<std::int64_t> offset(active_.size());
  std::map<std::int64_t, std::vector<std::size_t>> by_live;  // live count -> positions in active_
  for (std::size_t a = 0, row = 0; a < active_.size(); ++a) {
    offset[a] = static_cast<std::int64_t>(row);
    const std::size_t live = sentences_[active_[a]].live.size();
    by_live[static_cast<std::int64_t>(live)].push_back(a);
    row += live;
  }
  std::vector<Ranked> ranked(active_.size());
  if (candidates.is_cpu()) {
    const at::Tensor all = candidates.contiguous();
    const std::vector<float> zero(static_cast<std::size_t>(options_.beam_size), 0.0f);  // r already added
    for (std::size_t a = 0; a < active_.size(); ++a) {
      const auto live = static_cast<std::int64_t>(sentences_[active_[a]].live.size());
      ranked[a] = top_of_rows(all.data_ptr<float>() + offset[a] * vocab_, zero.data(), live, vocab_,
                              std::min(2 * options_.beam_size, live * vocab_));
    }
    return ranked;
  }
  for (const auto& [live, members] : by_live) {
    const std::int64_t width = live * vocab_;
    at::Tensor rows = candidates;  // [rows, V], grouped by sentence
    if (members.size() != active_.size()) {
      std::vector<std::int64_t> index;
      for (const std::size_t a : members) {
        for (std::int64_t j = 0; j < live; ++j) index.push_back(offset[a] + j);
      }
      rows = candidates.index_select(0, at::tensor(index, at::kLong).to(candidates.device()));
    }
    const auto [values, ids] = rows.view({-1, width}).topk(std::min(2 * options_.beam_size, width));
    const at::Tensor cpu_values = values.to(at::kCPU).contiguous(), cpu_ids = ids.to(at::kCPU).contiguous();
    const auto v = cpu_values.accessor<float, 2>();
    const auto i = cpu_ids.accessor<std::int64_t, 2>();
    for (std::size_t g = 0; g < members.size(); ++g) {
      Ranked& out = ranked[members[g]];
      for (std::int64_t q = 0; q < v.size(1); ++q) {
        out.emplace_back(v[static_cast<std::int64_t>(g)][q], i[static_cast<std::int64_t>(g)][q]);
      }
    }
  }
  return ranked;
}

// One step and its ranked candidates, one list per active sentence. Without a constraint at this
// step the model may rank them itself (a shortlist over its lists: ranked_step); else, or where it
// does not, they are ranked here from its log-probabilities.
RankedStep BeamSearch::step_and_rank(const DecoderState& state, const at::Tensor& previous,
                                     const at::Tensor& log_prob, std::int64_t t) const {
  const bool constrained = constraints_apply(t, options_);
  RankedStep out;
  if (constrained) {
    StepOutput step = model_.step(state, previous);
    out = {std::move(step.log_probs), {}, std::move(step.attention), std::move(step.state)};
  } else {
    std::vector<std::int64_t> groups;
    for (const std::size_t a : active_) groups.push_back(static_cast<std::int64_t>(sentences_[a].live.size()));
    out = model_.ranked_step(state, previous, log_prob, groups, 2 * options_.beam_size);
    if (!out.ranked.empty()) return out;
  }
  if (constrained || !out.log_probs.is_cpu() || out.log_probs.scalar_type() != at::kFloat) {
    at::Tensor candidates = (log_prob.unsqueeze(1) + out.log_probs.to(at::kFloat)).contiguous();  // [rows, V]
    std::vector<const std::vector<int>*> histories;
    for (const std::size_t a : active_) {
      for (const auto& tokens : sentences_[a].live) histories.push_back(&tokens);
    }
    apply_constraints(candidates, histories, t, options_);
    out.ranked = top_candidates(candidates);
  } else {
    out.ranked = top_candidates_of_sums(out.log_probs.contiguous(), log_prob.contiguous());  // the same, fused
  }
  return out;
}

// top_candidates of r + log p without the [rows, V] sum (CPU, float, no constraint at this step):
// log_probs [rows, V], log_prob r [rows], both contiguous on the CPU.
std::vector<Ranked> BeamSearch::top_candidates_of_sums(const at::Tensor& log_probs, const at::Tensor& log_prob) const {
  TORCH_CHECK(log_probs.size(1) == vocab_, "beam_search: the model's log-probabilities have ", log_probs.size(1),
              " columns, its target vocabulary ", vocab_, " words");
  std::vector<Ranked> ranked(active_.size());
  const float* values = log_probs.data_ptr<float>();
  const float* r = log_prob.data_ptr<float>();
  for (std::size_t a = 0, row = 0; a < active_.size(); ++a) {
    const auto live = static_cast<std::int64_t>(sentences_[active_[a]].live.size());
    ranked[a] = top_of_rows(values + static_cast<std::int64_t>(row) * vocab_, r + row, live, vocab_,
                            std::min(2 * options_.beam_size, live * vocab_));
    row += static_cast<std::size_t>(live);
  }
  return ranked;
}

// Step 3 of the algorithm: EOS among the first k finalizes; other tokens extend until k are live.
std::vector<Extension> BeamSearch::walk(std::size_t sentence, const Ranked& ranked, std::int64_t offset,
                                        std::int64_t step, std::vector<Final>& finals) const {
  const Sentence& s = sentences_[sentence];
  const auto k = static_cast<std::size_t>(options_.beam_size);
  std::vector<Extension> next;
  for (std::size_t q = 0; q < ranked.size() && next.size() < k; ++q) {
    const auto [value, j] = ranked[q];
    if (value == kNegInf) break;  // forbidden by a constraint, and so is everything after it
    const std::int64_t parent = j / vocab_;
    const auto token = static_cast<int>(j % vocab_);
    if (token != SpecialIds::kEos) {
      next.push_back({offset + parent, static_cast<std::size_t>(parent), token, value});
    } else if (q < k) {
      Final f;
      f.tokens = s.live[static_cast<std::size_t>(parent)];
      f.log_prob = value;
      f.finished = true;
      f.step = step;
      f.row = offset + parent;
      f.sentence = sentence;
      finals.push_back(std::move(f));
    }
  }
  return next;
}

// s = r / lp(|Y|) + cp for this step's finals; coverage [rows, src_len] includes this step's attention.
void BeamSearch::score(std::vector<Final>& finals, const at::Tensor& coverage) const {
  at::Tensor rows;  // [finals, src_len] on the CPU: C of each final
  if (coverage.defined() && !finals.empty()) {
    std::vector<std::int64_t> index;
    for (const Final& f : finals) index.push_back(f.row);
    rows = coverage.index_select(0, at::tensor(index, at::kLong).to(coverage.device())).to(at::kCPU).contiguous();
  }
  for (std::size_t n = 0; n < finals.size(); ++n) {
    Final& f = finals[n];
    const float* c = rows.defined() ? rows[static_cast<std::int64_t>(n)].data_ptr<float>() : nullptr;
    f.score = final_score(f.log_prob, f.length(), c, sentences_[f.sentence].source_length, options_);
  }
}

// Step 5: n finished hypotheses, the n-th best of which no live one can beat. A live r can only
// fall; r / lp(|Y|) is largest at |Y| = L_i when r < 0; cp <= 0.
bool BeamSearch::done(const Sentence& s, const std::vector<Extension>& next) const {
  if (next.empty()) return true;
  const auto n = static_cast<std::size_t>(options_.n_best);
  if (s.finished.size() < n) return false;
  std::vector<double> scores;
  for (const Final& f : s.finished) scores.push_back(f.score);
  std::nth_element(scores.begin(), scores.begin() + static_cast<std::ptrdiff_t>(n - 1), scores.end(),
                   std::greater<>());
  const double lp = length_penalty(options_.length_penalty, options_.length_alpha, s.limit);
  double bound = -std::numeric_limits<double>::infinity();
  for (const Extension& e : next) {
    const auto r = static_cast<double>(e.log_prob);
    bound = std::max(bound, r < 0 ? r / lp : r);
  }
  return scores[n - 1] >= bound;
}

// Step 4: a live hypothesis that reached L_i tokens is finalized, unfinished.
Final BeamSearch::at_limit_final(std::size_t sentence, const Extension& e, std::int64_t step) const {
  Final f;
  f.tokens = sentences_[sentence].live[e.local];
  f.tokens.push_back(e.token);
  f.log_prob = e.log_prob;
  f.step = step;
  f.row = e.parent;
  f.sentence = sentence;
  return f;
}

// Step 6: done sentences leave the batch; the others' rows follow their new live hypotheses.
// Returns the next batch's rows (none when no sentence is left).
NextBatch BeamSearch::advance(const std::vector<std::vector<Extension>>& next, const std::vector<bool>& finished_now) {
  NextBatch batch;
  std::vector<std::size_t> still_active;
  for (std::size_t a = 0; a < active_.size(); ++a) {
    Sentence& s = sentences_[active_[a]];
    if (finished_now[a] || done(s, next[a])) continue;
    std::vector<std::vector<int>> live;
    for (const Extension& e : next[a]) {
      batch.parents.push_back(e.parent);
      batch.tokens.push_back(e.token);
      batch.log_probs.push_back(e.log_prob);
      live.push_back(s.live[e.local]);
      live.back().push_back(e.token);
    }
    s.live = std::move(live);
    still_active.push_back(active_[a]);
  }
  active_ = std::move(still_active);
  return batch;
}

std::vector<std::vector<Hypothesis>> BeamSearch::run(const at::Tensor& source, const at::Tensor& lengths) {
  const std::int64_t batch = source.size(0);
  for (std::int64_t i = 0; i < batch; ++i) {
    const std::int64_t m = lengths[i].item<std::int64_t>();
    sentences_.push_back({m, options_.max_length(m - 1), {{}}, {}, {}});
    active_.push_back(static_cast<std::size_t>(i));
  }
  const auto on_device = [&](const auto& values, at::ScalarType type) {
    return at::tensor(values, type).to(source.device());
  };
  DecoderStatePtr state = model_.encode(source, lengths);
  at::Tensor previous = at::full({batch}, SpecialIds::kBos, source.options().dtype(at::kLong));  // [rows]
  at::Tensor log_prob = at::zeros({batch}, source.options().dtype(at::kFloat));                 // r [rows]
  at::Tensor coverage;  // C [rows, src_len], only for the coverage penalty; sized by the first attention

  for (std::int64_t t = 0; !active_.empty(); ++t) {
    RankedStep out = step_and_rank(*state, previous, log_prob, t);
    const std::vector<Ranked>& ranked = out.ranked;
    if (options_.coverage_beta != 0) {  // C after this step (a model may pad src_len: take its width)
      coverage = coverage.defined() ? coverage + out.attention.to(at::kFloat) : out.attention.to(at::kFloat).clone();
    }
    if (options_.keep_attention) attention_.push_back(out.attention);

    std::vector<Final> finals;
    std::vector<std::vector<Extension>> next(active_.size());
    std::vector<bool> at_limit(active_.size());
    for (std::size_t a = 0, offset = 0; a < active_.size(); ++a) {
      const Sentence& s = sentences_[active_[a]];
      next[a] = walk(active_[a], ranked[a], static_cast<std::int64_t>(offset), t, finals);
      offset += s.live.size();
      at_limit[a] = t + 1 >= s.limit;  // step 4: the new hypotheses hold L_i tokens
    }
    for (std::size_t a = 0; a < active_.size(); ++a) {
      if (!at_limit[a]) continue;
      for (const Extension& e : next[a]) finals.push_back(at_limit_final(active_[a], e, t));
    }
    score(finals, coverage);
    for (Final& f : finals) {
      Sentence& s = sentences_[f.sentence];
      (f.finished ? s.finished : s.unfinished).push_back(std::move(f));
    }
    NextBatch rows = advance(next, at_limit);
    if (active_.empty()) break;
    const at::Tensor index = on_device(rows.parents, at::kLong);
    state = out.state->select(index);
    previous = on_device(rows.tokens, at::kLong);
    log_prob = on_device(rows.log_probs, at::kFloat);
    if (coverage.defined()) coverage = coverage.index_select(0, index);
    if (options_.keep_attention) parents_.push_back(std::move(rows.parents));
  }
  return results();
}

// The first n of: finished sorted by s (stable: ties keep finalization order), then unfinished.
std::vector<const Final*> BeamSearch::best(const Sentence& s) const {
  const auto sorted = [](const std::vector<Final>& finals) {
    std::vector<const Final*> out;
    for (const Final& f : finals) out.push_back(&f);
    std::stable_sort(out.begin(), out.end(), [](const Final* a, const Final* b) { return a->score > b->score; });
    return out;
  };
  std::vector<const Final*> out = sorted(s.finished);
  for (const Final* f : sorted(s.unfinished)) out.push_back(f);
  if (out.size() > static_cast<std::size_t>(options_.n_best)) out.resize(static_cast<std::size_t>(options_.n_best));
  return out;
}

// Follows the back-pointers of each final from its last step to step 0: [|Y|, m_i] each, on the CPU.
std::vector<at::Tensor> BeamSearch::attention_of(const std::vector<const Final*>& finals) const {
  std::vector<std::int64_t> step_offset(attention_.size());  // first row of step t in the concatenation
  for (std::size_t t = 1; t < attention_.size(); ++t) step_offset[t] = step_offset[t - 1] + attention_[t - 1].size(0);
  std::vector<std::int64_t> index;
  for (const Final* f : finals) {
    std::vector<std::int64_t> path(static_cast<std::size_t>(f->step + 1));
    std::int64_t row = f->row;
    for (auto t = static_cast<std::size_t>(f->step);; --t) {
      path[t] = step_offset[t] + row;
      if (t == 0) break;
      row = parents_[t - 1][static_cast<std::size_t>(row)];
    }
    index.insert(index.end(), path.begin(), path.end());
  }
  if (index.empty()) return {};
  const at::Tensor all = at::cat(attention_).index_select(0, at::tensor(index, at::kLong).to(attention_[0].device()));
  const at::Tensor rows = all.to(at::kCPU);
  std::vector<at::Tensor> out;
  std::int64_t start = 0;
  for (const Final* f : finals) {
    out.push_back(rows.narrow(0, start, f->step + 1).slice(1, 0, sentences_[f->sentence].source_length).clone());
    start += f->step + 1;
  }
  return out;
}

std::vector<std::vector<Hypothesis>> BeamSearch::results() const {
  std::vector<std::vector<Hypothesis>> out(sentences_.size());
  std::vector<const Final*> returned;
  for (std::size_t i = 0; i < sentences_.size(); ++i) {
    for (const Final* f : best(sentences_[i])) {
      out[i].push_back({f->tokens, f->score, f->log_prob, f->finished, {}});
      returned.push_back(f);
    }
  }
  if (options_.keep_attention) {
    const std::vector<at::Tensor> attention = attention_of(returned);
    std::size_t n = 0;
    for (auto& hypotheses : out) {
      for (Hypothesis& h : hypotheses) h.attention = attention[n++];
    }
  }
  return out;
}

}  // namespace

std::vector<std::vector<Hypothesis>> beam_search(const IncrementalDecoder& model, const at::Tensor& source,
                                                 const at::Tensor& source_lengths, const SearchOptions& options) {
  options.validate();
  options.require_attention_if_used(model.has_attention());
  TORCH_CHECK(source.dim() == 2 && source_lengths.dim() == 1 && source_lengths.size(0) == source.size(0),
              "beam_search: source must be [batch, src_len] and source_lengths [batch]");
  c10::NoGradGuard no_grad;
  if (source.size(0) == 0) return {};
  return BeamSearch(model, options).run(source, source_lengths.to(at::kCPU).to(at::kLong));
}

}  // namespace nmt
