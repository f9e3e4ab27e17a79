// What search needs from a model: an initial state per batch, one decoding step, and a state that
// can be reordered along the batch (beam) dimension. Search includes only this header; the state is
// opaque to it (the model's own state is InferenceState, nmt/model/inference/inference_state.h).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace nmt {

/// A batch's decoder state. Search may only pick rows of it.
class DecoderState {
 public:
  virtual ~DecoderState() = default;
  virtual std::int64_t batch_size() const = 0;
  /// Rows `indices` [n] (int64 on any device, any order, repeats allowed): reorders beams or
  /// expands a batch. The state itself is not changed.
  virtual std::shared_ptr<const DecoderState> select(const at::Tensor& indices) const = 0;
};
using DecoderStatePtr = std::shared_ptr<const DecoderState>;

struct StepOutput {
  at::Tensor log_probs;  // [batch, target_vocab] log p(y_t | y_<t, x)
  at::Tensor attention;  // [batch, src_len]; undefined when the model has no attention
  DecoderStatePtr state;
};

/// A step over a subset of the target pieces, before its normalisation: logits [batch, K] with
/// log p(y_t = pieces[k] | y_<t, x) = logits[b, k] - c_b for one constant c_b per row (the model's
/// logits before the softmax, or the log-probabilities themselves: c_b = 0). A lexical shortlist
/// normalises them over each sentence's own list (nmt/search/shortlist_decoder.h).
struct StepLogits {
  at::Tensor logits;
  at::Tensor attention;  // as StepOutput's
  DecoderStatePtr state;
};

/// A greedy step: each row's best piece, when the model could choose it without writing the
/// log-probabilities (ids and scores [batch], on the CPU), else log_probs as step() gives them (ids
/// and scores empty).
struct BestStep {
  at::Tensor log_probs;            // [batch, target_vocab], or undefined when `ids` are given
  std::vector<std::int64_t> ids;   // the first piece with the largest offset[b] + log p(piece)
  std::vector<float> scores;       // that value (the sum in float); -inf when every value is NaN
  at::Tensor attention;            // as StepOutput's
  DecoderStatePtr state;
};

/// A beam step's ranking: for each group of adjacent rows (a sentence's live hypotheses), its best
/// min(count, rows x V) candidates (offset[row] + log p(piece) in float, flat index row_in_group x V
/// + piece), best first, equal values in index order, NaN never ranking: what top_of_rows gives over
/// step()'s log-probabilities (nmt/kernels/top_candidates.h), when the model could rank without
/// writing them (`ranked`, one list per group); else log_probs as step() gives them (`ranked` empty).
struct RankedStep {
  at::Tensor log_probs;                                           // [batch, target_vocab] or undefined
  std::vector<std::vector<std::pair<float, std::int64_t>>> ranked;  // [group] best first
  at::Tensor attention;                                           // as StepOutput's
  DecoderStatePtr state;
};

/// A model's output layer restricted to some target pieces (a lexical shortlist's), made once for
/// the steps of a batch: pieces [K] int64, increasing, on the model's device. A model may derive
/// from it to keep what it prepared (InferenceModel: the rows of W_out and b_out, packed).
class OutputSubset {
 public:
  explicit OutputSubset(at::Tensor pieces) : pieces_(std::move(pieces)) {}
  virtual ~OutputSubset() = default;
  const at::Tensor& pieces() const { return pieces_; }

 private:
  at::Tensor pieces_;
};

/// The incremental face of a translation model. Implementations are safe to step from several
/// threads at once (the translator's workers share one model).
class IncrementalDecoder {
 public:
  virtual ~IncrementalDecoder() = default;
  /// source [batch, src_len] int64 (x_1 .. x_n EOS, padded), source_lengths [batch] int64 on the CPU.
  virtual DecoderStatePtr encode(const at::Tensor& source, const at::Tensor& source_lengths) const = 0;
  /// previous_tokens [batch] int64 (BOS at the first step); state as encode() or a step returned it.
  virtual StepOutput step(const DecoderState& state, const at::Tensor& previous_tokens) const = 0;
  /// The output layer over `pieces` only, for the steps of one batch. The default keeps the ids.
  virtual std::shared_ptr<const OutputSubset> output_subset(const at::Tensor& pieces) const;
  /// step() over a subset's pieces, without the normalisation: logits [batch, K], column k for
  /// piece pieces()[k]. The default selects those columns of step()'s log-probabilities (c_b = 0).
  virtual StepLogits step_logits(const DecoderState& state, const at::Tensor& previous_tokens,
                                 const OutputSubset& subset) const;
  /// step() for greedy search, offset [batch] float (each row's score so far): a model may choose
  /// each row's best piece itself, with exactly the ids and scores that ranking step()'s
  /// log-probabilities would give (nmt/search/greedy_search.cc). The default returns step()'s.
  virtual BestStep best_step(const DecoderState& state, const at::Tensor& previous_tokens,
                             const at::Tensor& offset) const;
  /// step() for beam search, offset [batch] float (each row's score so far), group_sizes the rows of
  /// each group in order (their sum is the batch): a model may rank each group's candidates itself,
  /// exactly as ranking step()'s log-probabilities would (RankedStep). The default returns step()'s.
  virtual RankedStep ranked_step(const DecoderState& state, const at::Tensor& previous_tokens,
                                 const at::Tensor& offset, const std::vector<std::int64_t>& group_sizes,
                                 std::int64_t count) const;
  virtual std::int64_t target_vocab_size() const = 0;
  /// False for a model without attention (steps give no weights to keep, align or cover with).
  virtual bool has_attention() const { return true; }
};

}  // namespace nmt
