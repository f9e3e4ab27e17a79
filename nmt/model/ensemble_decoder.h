// An ensemble of translation models behind the step interface (nmt-translate -m a.pt -m b.pt,
// docs/search.md "Ensembles"): every member steps with the same previous tokens, and the step's
// log-probabilities combine
//   log-linear: log p(y) = 1/K sum_k log p_k(y)            (OpenNMT-py's default; not renormalised)
//   linear:     log p(y) = log(1/K sum_k p_k(y))            (fairseq, Sockeye; a distribution)
// so greedy and beam search, n-best lists, penalties, forced decoding and batch invariance work
// unchanged. Members share the target vocabulary; they may read the source with other subword
// models: a member reads "view" v of the source, view 0 being the translator's own segmentation,
// and the translator binds a batch's other views (bind_extra_sources) before searching it.
// The attention is the mean of the members that read view 0 and have attention.
#pragma once

#include <ATen/core/Tensor.h>

#include <memory>
#include <vector>

#include "nmt/core/enum_names.h"
#include "nmt/model/incremental_decoder.h"

namespace nmt {

enum class EnsembleMode { log_linear, linear };
const EnumNames<EnsembleMode>& enum_names(EnsembleMode);  // log-linear, linear

class EnsembleDecoder : public IncrementalDecoder {
 public:
  struct Member {
    const IncrementalDecoder* model;  // not owned; outlives the ensemble
    std::size_t source_view = 0;      // 0: the translator's segmentation; v > 0: extra view v - 1
  };
  /// At least one member; equal target vocabulary sizes (ConfigError otherwise); views numbered
  /// 0 .. extra_source_count() without gaps.
  EnsembleDecoder(std::vector<Member> members, EnsembleMode mode);

  DecoderStatePtr encode(const at::Tensor& source, const at::Tensor& source_lengths) const override;
  StepOutput step(const DecoderState& state, const at::Tensor& previous_tokens) const override;
  std::int64_t target_vocab_size() const override { return members_.front().model->target_vocab_size(); }
  bool has_attention() const override;
  std::size_t extra_source_count() const override { return extra_views_; }
  std::shared_ptr<const IncrementalDecoder> bind_extra_sources(ExtraSources extra) const override;

 private:
  DecoderStatePtr encode_views(const at::Tensor& source, const at::Tensor& source_lengths,
                               const ExtraSources* extra) const;
  friend class BoundEnsemble;

  std::vector<Member> members_;
  EnsembleMode mode_;
  std::size_t extra_views_ = 0;
};

}  // namespace nmt
