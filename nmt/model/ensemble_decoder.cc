#include "nmt/model/ensemble_decoder.h"

#include <ATen/ATen.h>

#include <cmath>
#include <set>

#include "nmt/core/error.h"

namespace nmt {

const EnumNames<EnsembleMode>& enum_names(EnsembleMode) {
  static const EnumNames<EnsembleMode> names(
      "ensemble mode", {{EnsembleMode::log_linear, "log-linear"}, {EnsembleMode::linear, "linear"}});
  return names;
}

namespace {

// The members' states, in member order.
class EnsembleState : public DecoderState {
 public:
  explicit EnsembleState(std::vector<DecoderStatePtr> states) : states_(std::move(states)) {}
  std::int64_t batch_size() const override { return states_.front()->batch_size(); }
  std::shared_ptr<const DecoderState> select(const at::Tensor& indices) const override {
    std::vector<DecoderStatePtr> picked;
    picked.reserve(states_.size());
    for (const auto& s : states_) picked.push_back(s->select(indices));
    return std::make_shared<EnsembleState>(std::move(picked));
  }
  const DecoderState& member(std::size_t i) const { return *states_[i]; }

 private:
  std::vector<DecoderStatePtr> states_;
};

}  // namespace

// The ensemble with one batch's further views: encode() reads them, step() is the ensemble's.
class BatchEnsemble : public IncrementalDecoder {
 public:
  BatchEnsemble(const EnsembleDecoder& ensemble, SourceViewBatch batch) : ensemble_(ensemble), batch_(std::move(batch)) {}
  DecoderStatePtr encode(const at::Tensor& source, const at::Tensor& source_lengths) const override {
    return ensemble_.encode_views(source, source_lengths, &batch_);
  }
  StepOutput step(const DecoderState& state, const at::Tensor& previous_tokens) const override {
    return ensemble_.step(state, previous_tokens);
  }
  std::int64_t target_vocab_size() const override { return ensemble_.target_vocab_size(); }
  bool has_attention() const override { return ensemble_.has_attention(); }

 private:
  const EnsembleDecoder& ensemble_;
  SourceViewBatch batch_;
};

EnsembleDecoder::EnsembleDecoder(std::vector<Member> members, EnsembleMode mode, SourceViews views)
    : members_(std::move(members)), mode_(mode), views_(std::move(views)) {
  if (members_.empty()) throw ConfigError("an ensemble needs at least one model");
  std::set<std::size_t> read;  // the views members read
  for (const Member& m : members_) {
    if (m.model->target_vocab_size() != members_.front().model->target_vocab_size()) {
      throw ConfigError("ensemble members have target vocabularies of " +
                        std::to_string(members_.front().model->target_vocab_size()) + " and " +
                        std::to_string(m.model->target_vocab_size()) + " pieces");
    }
    read.insert(m.source_view);
  }
  // Views 0 .. views_.size(), each read by some member (view 0 by the first, whose segmentation
  // the translator's is).
  if (read.size() != views_.size() + 1 || *read.rbegin() != views_.size() || members_.front().source_view != 0) {
    throw Error("an ensemble with " + std::to_string(views_.size()) + " further source view(s) has members reading " +
                std::to_string(read.size()) + " distinct view(s) up to view " + std::to_string(*read.rbegin()) +
                "; the first member must read view 0 (a bug of the caller)");
  }
}

bool EnsembleDecoder::has_attention() const {
  for (const Member& m : members_) {
    if (m.source_view == 0 && m.model->has_attention()) return true;
  }
  return false;
}

std::shared_ptr<const IncrementalDecoder> EnsembleDecoder::for_batch(SourceViewBatch batch) const {
  if (batch.sources.size() != views_.size() || batch.lengths.size() != views_.size()) {
    throw Error("an ensemble reading " + std::to_string(views_.size()) + " further source view(s) was given " +
                std::to_string(batch.sources.size()) + " (a bug of the caller)");
  }
  return std::make_shared<BatchEnsemble>(*this, std::move(batch));
}

std::shared_ptr<const IncrementalDecoder> EnsembleDecoder::with_hard_attention() const {
  std::vector<std::shared_ptr<const IncrementalDecoder>> owned;
  std::vector<Member> members;
  for (const Member& m : members_) {
    if (!m.model->has_attention()) {
      members.push_back(m);
      continue;
    }
    owned.push_back(harden_attention(*m.model));
    members.push_back({owned.back().get(), m.source_view});
  }
  auto hardened = std::make_shared<EnsembleDecoder>(std::move(members), mode_, views_);
  hardened->owned_ = std::move(owned);
  return hardened;
}

DecoderStatePtr EnsembleDecoder::encode(const at::Tensor& source, const at::Tensor& source_lengths) const {
  return encode_views(source, source_lengths, nullptr);
}

DecoderStatePtr EnsembleDecoder::encode_views(const at::Tensor& source, const at::Tensor& source_lengths,
                                              const SourceViewBatch* batch) const {
  if (views_.size() > 0 && batch == nullptr) {
    throw Error("an ensemble whose members read other source segmentations encodes a batch through "
                "for_batch(), which is given the batch's views (a bug of the caller)");
  }
  std::vector<DecoderStatePtr> states;
  states.reserve(members_.size());
  for (const Member& m : members_) {
    if (m.source_view == 0) {
      states.push_back(m.model->encode(source, source_lengths));
    } else {
      const at::Tensor& view = batch->sources[m.source_view - 1];
      states.push_back(m.model->encode(view.to(source.device()), batch->lengths[m.source_view - 1]));
    }
  }
  return std::make_shared<EnsembleState>(std::move(states));
}

StepOutput EnsembleDecoder::step(const DecoderState& state, const at::Tensor& previous_tokens) const {
  const auto& ensemble_state = static_cast<const EnsembleState&>(state);
  if (members_.size() == 1) {  // the member itself, bit for bit
    StepOutput out = members_.front().model->step(ensemble_state.member(0), previous_tokens);
    out.state = std::make_shared<EnsembleState>(std::vector<DecoderStatePtr>{std::move(out.state)});
    return out;
  }
  std::vector<at::Tensor> log_probs;
  std::vector<DecoderStatePtr> states;
  at::Tensor attention;
  std::int64_t attending = 0;
  for (std::size_t i = 0; i < members_.size(); ++i) {
    StepOutput out = members_[i].model->step(ensemble_state.member(i), previous_tokens);
    log_probs.push_back(out.log_probs);
    states.push_back(std::move(out.state));
    if (members_[i].source_view == 0 && out.attention.defined()) {
      attention = attending == 0 ? out.attention.clone() : attention.add_(out.attention);
      ++attending;
    }
  }
  const auto k = static_cast<double>(members_.size());
  StepOutput combined;
  if (mode_ == EnsembleMode::log_linear) {
    // Summed in member order, divided once: two copies of one model give its own numbers back
    // ((x + x) / 2 = x in floating point; three copies need not).
    at::Tensor sum = log_probs.front().clone();
    for (std::size_t i = 1; i < log_probs.size(); ++i) sum.add_(log_probs[i]);
    combined.log_probs = sum.div_(k);
  } else {
    combined.log_probs = at::logsumexp(at::stack(log_probs), 0).sub_(std::log(k));
  }
  if (attending > 0) combined.attention = attending == 1 ? attention : attention.div_(static_cast<double>(attending));
  combined.state = std::make_shared<EnsembleState>(std::move(states));
  return combined;
}

}  // namespace nmt
