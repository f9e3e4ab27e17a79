// An ensemble of translation models behind the step interface (nmt-translate -m a.pt -m b.pt,
// docs/search.md "Ensembles"): every member steps with the same previous tokens, and the step's
// log-probabilities combine
//   log-linear: log p(y) = 1/K sum_k log p_k(y)            (OpenNMT-py's default; not renormalised)
//   linear:     log p(y) = log(1/K sum_k p_k(y))            (fairseq, Sockeye; a distribution)
// so greedy and beam search, n-best lists, penalties, forced decoding and batch invariance work
// unchanged. Members share the target vocabulary; they may read the source with other subword
// models: a member reads "view" v of the source (nmt/model/source_views.h), view 0 being the
// translator's own segmentation; the ensemble owns the further views' subword models, and the
// Translator segments a batch with them and searches the ensemble made for that batch (for_batch).
// The attention is the mean of the members that read view 0 and have attention.
#pragma once

#include <ATen/core/Tensor.h>

#include <memory>
#include <vector>

#include "nmt/core/enum_names.h"
#include "nmt/model/attention_hardening.h"
#include "nmt/model/incremental_decoder.h"
#include "nmt/model/source_views.h"

namespace nmt {

enum class EnsembleMode { log_linear, linear };
const EnumNames<EnsembleMode>& enum_names(EnsembleMode);  // log-linear, linear

class EnsembleDecoder : public IncrementalDecoder, public AttentionHardening {
 public:
  struct Member {
    const IncrementalDecoder* model;  // not owned; outlives the ensemble
    std::size_t source_view = 0;      // 0: the translator's segmentation; v > 0: views.tokenizer(v)
  };
  /// At least one member; equal target vocabulary sizes (ConfigError otherwise); every view of
  /// `views` read by some member, and no member reading a view beyond them.
  EnsembleDecoder(std::vector<Member> members, EnsembleMode mode, SourceViews views = {});

  DecoderStatePtr encode(const at::Tensor& source, const at::Tensor& source_lengths) const override;
  StepOutput step(const DecoderState& state, const at::Tensor& previous_tokens) const override;
  std::int64_t target_vocab_size() const override { return members_.front().model->target_vocab_size(); }
  bool has_attention() const override;

  /// The segmentations the members read besides view 0. With any, encode() needs a batch's views:
  /// search the decoder for_batch() gives instead.
  const SourceViews& source_views() const { return views_; }
  /// This ensemble for one batch, whose further views are `batch` (source_views().size() of them):
  /// the decoder to search that batch with. It refers to this ensemble, which must outlive it.
  std::shared_ptr<const IncrementalDecoder> for_batch(SourceViewBatch batch) const;

  /// The ensemble of the members with hard attention (those without attention as they are), the
  /// same views; it owns the hardened members. ConfigError as harden_attention() for a member.
  std::shared_ptr<const IncrementalDecoder> with_hard_attention() const override;

 private:
  DecoderStatePtr encode_views(const at::Tensor& source, const at::Tensor& source_lengths,
                               const SourceViewBatch* batch) const;
  friend class BatchEnsemble;

  std::vector<Member> members_;
  EnsembleMode mode_;
  SourceViews views_;
  std::vector<std::shared_ptr<const IncrementalDecoder>> owned_;  // members a hardened ensemble made
};

}  // namespace nmt
