#include "nmt/search/shortlist_decoder.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <utility>
#include <vector>

#include "nmt/core/error.h"
#include "nmt/kernels/kernels.h"
#include "nmt/kernels/top_candidates.h"

namespace nmt {
namespace {

// The lists of one batch: the output subset (the union, increasing) and, per sentence, the
// positions of its own pieces in it.
struct BatchLists {
  std::shared_ptr<const OutputSubset> subset;
  std::vector<std::vector<std::int64_t>> columns;  // [sentence] increasing positions in subset->pieces()
  at::Tensor allowed;  // [sentences, K] bool on the model's device: the same, for tensor operations
};

class ShortlistState final : public DecoderState {
 public:
  ShortlistState(DecoderStatePtr inner, std::shared_ptr<const BatchLists> lists, std::vector<std::int64_t> sentence)
      : inner_(std::move(inner)), lists_(std::move(lists)), sentence_(std::move(sentence)) {}

  std::int64_t batch_size() const override { return inner_->batch_size(); }
  DecoderStatePtr select(const at::Tensor& indices) const override {
    const at::Tensor rows = indices.to(at::kCPU).to(at::kLong).contiguous();
    std::vector<std::int64_t> sentence(static_cast<std::size_t>(rows.numel()));
    for (std::size_t i = 0; i < sentence.size(); ++i) {
      sentence[i] = sentence_.at(static_cast<std::size_t>(rows.data_ptr<std::int64_t>()[i]));
    }
    return std::make_shared<ShortlistState>(inner_->select(indices), lists_, std::move(sentence));
  }

  const DecoderState& inner() const { return *inner_; }
  const std::shared_ptr<const BatchLists>& lists() const { return lists_; }
  const std::vector<std::int64_t>& sentence() const { return sentence_; }
  /// [rows, K] bool: each row's columns, on the model's device.
  at::Tensor allowed_rows() const {
    return lists_->allowed.index_select(0, at::tensor(sentence_, at::kLong).to(lists_->allowed.device()));
  }
  /// Each row's columns, in row order.
  std::vector<const std::vector<std::int64_t>*> row_columns() const {
    std::vector<const std::vector<std::int64_t>*> columns;
    columns.reserve(sentence_.size());
    for (const std::int64_t s : sentence_) columns.push_back(&lists_->columns[static_cast<std::size_t>(s)]);
    return columns;
  }

 private:
  DecoderStatePtr inner_;
  std::shared_ptr<const BatchLists> lists_;
  std::vector<std::int64_t> sentence_;  // [row]: the sentence of the batch the row belongs to
};

const ShortlistState& as_shortlist_state(const DecoderState& state) {
  const auto* s = dynamic_cast<const ShortlistState*>(&state);
  if (s == nullptr) throw Error("ShortlistDecoder: a state it did not make (a bug of the caller)");
  return *s;
}

}  // namespace

ShortlistDecoder::ShortlistDecoder(std::shared_ptr<const IncrementalDecoder> model,
                                   std::shared_ptr<const LexicalShortlist> shortlist)
    : model_(std::move(model)), shortlist_(std::move(shortlist)) {
  if (!model_ || !shortlist_) throw Error("ShortlistDecoder: no model or no shortlist (a bug of the caller)");
  if (shortlist_->target_vocab() != model_->target_vocab_size()) {
    throw ConfigError("the shortlist has " + std::to_string(shortlist_->target_vocab()) + " target pieces, the model " +
                      std::to_string(model_->target_vocab_size()));
  }
}

DecoderStatePtr ShortlistDecoder::encode(const at::Tensor& source, const at::Tensor& source_lengths) const {
  TORCH_CHECK(source.dim() == 2 && source_lengths.dim() == 1 && source_lengths.size(0) == source.size(0),
              "ShortlistDecoder: source must be [batch, src_len] and source_lengths [batch]");
  const at::Tensor ids = source.to(at::kCPU).to(at::kLong).contiguous();
  const at::Tensor lengths = source_lengths.to(at::kCPU).to(at::kLong).contiguous();
  const std::int64_t batch = ids.size(0), width = ids.size(1);
  std::vector<std::vector<std::int64_t>> lists(static_cast<std::size_t>(batch));
  std::vector<std::int64_t> all;
  for (std::int64_t b = 0; b < batch; ++b) {
    const std::int64_t length = std::min(width, lengths.data_ptr<std::int64_t>()[b]);
    lists[static_cast<std::size_t>(b)] = shortlist_->pieces_for(ids.data_ptr<std::int64_t>() + b * width, length);
    all.insert(all.end(), lists[static_cast<std::size_t>(b)].begin(), lists[static_cast<std::size_t>(b)].end());
  }
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  auto batch_lists = std::make_shared<BatchLists>();
  batch_lists->columns.resize(lists.size());
  for (std::size_t b = 0; b < lists.size(); ++b) {
    for (const std::int64_t piece : lists[b]) {
      batch_lists->columns[b].push_back(std::lower_bound(all.begin(), all.end(), piece) - all.begin());
    }
  }
  batch_lists->subset = model_->output_subset(at::tensor(all, at::kLong).to(source.device()));
  at::Tensor allowed = at::zeros({batch, static_cast<std::int64_t>(all.size())}, at::kBool);
  bool* mark = allowed.data_ptr<bool>();
  for (std::size_t b = 0; b < lists.size(); ++b) {
    for (const std::int64_t c : batch_lists->columns[b]) mark[static_cast<std::int64_t>(b) * allowed.size(1) + c] = true;
  }
  batch_lists->allowed = allowed.to(source.device());
  std::vector<std::int64_t> sentence(static_cast<std::size_t>(batch));
  for (std::int64_t b = 0; b < batch; ++b) sentence[static_cast<std::size_t>(b)] = b;
  return std::make_shared<ShortlistState>(model_->encode(source, source_lengths), std::move(batch_lists),
                                          std::move(sentence));
}

namespace {

// [rows, vocab]: each row's logits over its own pieces, normalised over them, -inf elsewhere. On
// the CPU the inference kernel (kernels.h, scatter_subsets); elsewhere (CUDA, autograd) tensor
// operations over the batch's mask.
at::Tensor spread(const ShortlistState& s, const at::Tensor& logits, std::int64_t vocab) {
  const at::Tensor& pieces = s.lists()->subset->pieces();
  if (inference_kernels_apply(logits, at::Tensor())) {
    return scatter_subsets(logits, s.row_columns(), pieces, vocab);
  }
  const double minus_infinity = -std::numeric_limits<double>::infinity();
  const at::Tensor values = logits.masked_fill(s.allowed_rows().logical_not(), minus_infinity).log_softmax(/*dim=*/-1);
  return at::full({logits.size(0), vocab}, minus_infinity, logits.options())
      .index_copy(1, pieces.to(logits.device()), values);
}

}  // namespace

StepOutput ShortlistDecoder::step(const DecoderState& state, const at::Tensor& previous_tokens) const {
  const ShortlistState& s = as_shortlist_state(state);
  StepLogits out = model_->step_logits(s.inner(), previous_tokens, *s.lists()->subset);
  at::Tensor log_probs = spread(s, out.logits, target_vocab_size());
  return {std::move(log_probs), std::move(out.attention),
          std::make_shared<ShortlistState>(std::move(out.state), s.lists(), s.sentence())};
}

BestStep ShortlistDecoder::best_step(const DecoderState& state, const at::Tensor& previous_tokens,
                                    const at::Tensor& offset) const {
  // Greedy's choice is a ranking of each row alone, best first: ranked_step's, with count 1.
  const std::int64_t rows = state.batch_size();
  RankedStep ranked = ranked_step(state, previous_tokens, offset, std::vector<std::int64_t>(static_cast<std::size_t>(rows), 1), 1);
  BestStep best{std::move(ranked.log_probs), {}, {}, std::move(ranked.attention), std::move(ranked.state)};
  if (ranked.ranked.empty()) return best;  // step()'s log-probabilities, for the search to rank
  best.ids.assign(static_cast<std::size_t>(rows), 0);  // a row whose every sum is NaN: (-inf, 0), as greedy's ranking
  best.scores.assign(static_cast<std::size_t>(rows), -std::numeric_limits<float>::infinity());
  for (std::size_t r = 0; r < ranked.ranked.size(); ++r) {
    if (ranked.ranked[r].empty()) continue;
    best.scores[r] = ranked.ranked[r].front().first;
    best.ids[r] = ranked.ranked[r].front().second;  // row 0 of its group: the piece itself
  }
  return best;
}

RankedStep ShortlistDecoder::ranked_step(const DecoderState& state, const at::Tensor& previous_tokens,
                                         const at::Tensor& offset, const std::vector<std::int64_t>& group_sizes,
                                         std::int64_t count) const {
  const ShortlistState& s = as_shortlist_state(state);
  StepLogits out = model_->step_logits(s.inner(), previous_tokens, *s.lists()->subset);
  RankedStep result{at::Tensor(), {}, std::move(out.attention),
                    std::make_shared<ShortlistState>(std::move(out.state), s.lists(), s.sentence())};
  const std::int64_t vocab = target_vocab_size();
  if (!best_of_log_softmax_applies(out.logits)) {
    result.log_probs = spread(s, out.logits, vocab);
    return result;
  }
  const std::vector<const std::vector<std::int64_t>*> columns = s.row_columns();
  TORCH_CHECK(std::accumulate(group_sizes.begin(), group_sizes.end(), std::int64_t{0}) ==
                  static_cast<std::int64_t>(columns.size()) && offset.numel() == static_cast<std::int64_t>(columns.size()),
              "ShortlistDecoder::ranked_step: the groups and offsets must cover the batch's rows");
  const std::vector<float> values = log_softmax_of_lists(out.logits, columns);
  const at::Tensor pieces = s.lists()->subset->pieces().to(at::kCPU).to(at::kLong).contiguous();
  const std::int64_t* piece = pieces.data_ptr<std::int64_t>();  // once: data_ptr is an out-of-line call
  const at::Tensor r = offset.to(at::kCPU, at::kFloat).contiguous();
  const float* offsets = r.data_ptr<float>();
  std::vector<ListedRow> rows;
  std::size_t row = 0, value = 0;
  for (const std::int64_t size : group_sizes) {
    rows.clear();
    for (std::int64_t i = 0; i < size; ++i, ++row) {
      rows.push_back({values.data() + value, columns[row]});
      value += columns[row]->size();
    }
    const std::size_t first = row - static_cast<std::size_t>(size);
    const float* group_offset = offsets + first;
    const std::int64_t wanted = std::min(count, size * vocab);
    Ranked& ranked = result.ranked.emplace_back();
    if (top_of_listed_rows(rows, piece, group_offset, vocab, wanted, ranked)) continue;
    // The -inf off the lists can rank here: the group's rows written out, ranked as step()'s would be.
    std::vector<float> written(static_cast<std::size_t>(size * vocab), -std::numeric_limits<float>::infinity());
    for (std::int64_t i = 0; i < size; ++i) {
      const ListedRow& listed = rows[static_cast<std::size_t>(i)];
      for (std::size_t c = 0; c < listed.positions->size(); ++c) {
        written[static_cast<std::size_t>(i * vocab + piece[(*listed.positions)[c]])] = listed.values[c];
      }
    }
    ranked = top_of_rows(written.data(), group_offset, size, vocab, wanted);
  }
  return result;
}

}  // namespace nmt
