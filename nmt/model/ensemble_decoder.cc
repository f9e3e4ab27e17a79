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

// The ensemble with one batch's further segmentations: encode() reads them, step() is the ensemble's.
class BoundEnsemble : public IncrementalDecoder {
 public:
  BoundEnsemble(const EnsembleDecoder& ensemble, ExtraSources extra) : ensemble_(ensemble), extra_(std::move(extra)) {}
  DecoderStatePtr encode(const at::Tensor& source, const at::Tensor& source_lengths) const override {
    return ensemble_.encode_views(source, source_lengths, &extra_);
  }
  StepOutput step(const DecoderState& state, const at::Tensor& previous_tokens) const override {
    return ensemble_.step(state, previous_tokens);
  }
  std::int64_t target_vocab_size() const override { return ensemble_.target_vocab_size(); }
  bool has_attention() const override { return ensemble_.has_attention(); }

 private:
  const EnsembleDecoder& ensemble_;
  ExtraSources extra_;
};

EnsembleDecoder::EnsembleDecoder(std::vector<Member> members, EnsembleMode mode)
    : members_(std::move(members)), mode_(mode) {
  if (members_.empty()) throw ConfigError("an ensemble needs at least one model");
  std::set<std::size_t> views;
  for (const Member& m : members_) {
    if (m.model->target_vocab_size() != members_.front().model->target_vocab_size()) {
      throw ConfigError("ensemble members have target vocabularies of " +
                        std::to_string(members_.front().model->target_vocab_size()) + " and " +
                        std::to_string(m.model->target_vocab_size()) + " pieces");
    }
    views.insert(m.source_view);
  }
  extra_views_ = views.empty() ? 0 : *views.rbegin();
  if (views.size() != extra_views_ + 1 || *views.begin() != 0) {
    throw Error("ensemble source views must be numbered 0 .. n without gaps (a bug of the caller)");
  }
}

bool EnsembleDecoder::has_attention() const {
  for (const Member& m : members_) {
    if (m.source_view == 0 && m.model->has_attention()) return true;
  }
  return false;
}

std::shared_ptr<const IncrementalDecoder> EnsembleDecoder::bind_extra_sources(ExtraSources extra) const {
  if (extra.sources.size() != extra_views_ || extra.lengths.size() != extra_views_) {
    throw Error("an ensemble reading " + std::to_string(extra_views_) + " further segmentations was given " +
                std::to_string(extra.sources.size()) + " (a bug of the caller)");
  }
  return std::make_shared<BoundEnsemble>(*this, std::move(extra));
}

DecoderStatePtr EnsembleDecoder::encode(const at::Tensor& source, const at::Tensor& source_lengths) const {
  return encode_views(source, source_lengths, nullptr);
}

DecoderStatePtr EnsembleDecoder::encode_views(const at::Tensor& source, const at::Tensor& source_lengths,
                                              const ExtraSources* extra) const {
  if (extra_views_ > 0 && extra == nullptr) {
    throw Error("an ensemble whose members read other source segmentations must be bound to a batch's "
                "(bind_extra_sources) before encode (a bug of the caller)");
  }
  std::vector<DecoderStatePtr> states;
  states.reserve(members_.size());
  for (const Member& m : members_) {
    if (m.source_view == 0) {
      states.push_back(m.model->encode(source, source_lengths));
    } else {
      const at::Tensor& view = extra->sources[m.source_view - 1];
      states.push_back(m.model->encode(view.to(source.device()), extra->lengths[m.source_view - 1]));
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
