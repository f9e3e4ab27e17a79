// Decoding with a lexical shortlist (nmt-translate --shortlist, docs/search.md "Lexical
// shortlist"): a model behind the step interface whose output layer each sentence sees over its
// own list of target pieces only (LexicalShortlist::pieces_for its source). A batch's rows share
// one output subset, the union of their sentences' lists, computed once per batch; each row is
// then normalised over its own list:
//   log p(y_t = v | ...) = z_v - log sum_{u in L(x)} exp z_u   for v in L(x), -inf outside,
// a proper distribution over the list, whatever else the batch holds (batch invariance).
#pragma once

#include <ATen/core/Tensor.h>

#include <memory>

#include "nmt/model/incremental_decoder.h"
#include "nmt/search/lexical_shortlist.h"

namespace nmt {

class ShortlistDecoder final : public IncrementalDecoder {
 public:
  /// `model` reads the source in the segmentation the shortlist was built for.
  ShortlistDecoder(std::shared_ptr<const IncrementalDecoder> model, std::shared_ptr<const LexicalShortlist> shortlist);

  /// source [batch, src_len] int64 (the lists come from its real positions), as the model's encode().
  DecoderStatePtr encode(const at::Tensor& source, const at::Tensor& source_lengths) const override;
  /// log_probs [batch, V]: each row normalised over its sentence's list, -inf elsewhere.
  StepOutput step(const DecoderState& state, const at::Tensor& previous_tokens) const override;
  /// Greedy's step: ranked_step's ranking of each row alone, its best candidate (on the CPU from
  /// the row's own list: no [batch, V] row written or scanned); elsewhere step()'s.
  BestStep best_step(const DecoderState& state, const at::Tensor& previous_tokens,
                     const at::Tensor& offset) const override;
  /// Beam search's step: on the CPU each sentence's candidates ranked from its rows' lists
  /// (top_of_listed_rows; its rows written out only where -inf off the lists could rank);
  /// elsewhere step()'s.
  RankedStep ranked_step(const DecoderState& state, const at::Tensor& previous_tokens, const at::Tensor& offset,
                         const std::vector<std::int64_t>& group_sizes, std::int64_t count) const override;
  std::int64_t target_vocab_size() const override { return model_->target_vocab_size(); }
  bool has_attention() const override { return model_->has_attention(); }

 private:
  std::shared_ptr<const IncrementalDecoder> model_;
  std::shared_ptr<const LexicalShortlist> shortlist_;
};

}  // namespace nmt
