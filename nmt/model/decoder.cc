#include "nmt/model/decoder.h"

#include <ATen/ATen.h>

#include <map>

#include "nmt/kernels/kernels.h"

namespace nmt {

DecoderImpl::DecoderImpl(const ModelConfig& config) : config_(config), layout_(DecoderLayout::of(config)) {
  const std::int64_t H2 = 2 * config.encoder_hidden_size, D = config.decoder_hidden_size, R = config.readout_size();
  if (config.has_attention()) attention_ = register_module("attention", make_attention(config));
  // The GRU module only holds the parameters under PyTorch's names; the walk runs the cell.
  rnn_ = register_module("rnn", torch::nn::GRU(torch::nn::GRUOptions(layout_.gru_input_size(), D)
                                                   .num_layers(config.decoder_layers)
                                                   .batch_first(true)));
  for (std::int64_t l = 0; l < config.decoder_layers; ++l) layers_.push_back(gru_weights(rnn_, l));
  if (config.bridge == BridgeType::linear) bridge_ = register_module("bridge", torch::nn::Linear(H2, D));
  readout_ = register_module("readout", torch::nn::Linear(layout_.readout_size(), R));
}

at::Tensor DecoderImpl::initial_hidden(const EncoderOutput& encoded) {
  const Product bridge = [&](const at::Tensor& x) { return stable_linear(x, bridge_->weight, bridge_->bias); };
  return initial_decoder_state(encoded, config_.decoder_layers, config_.decoder_hidden_size, bridge_ ? &bridge : nullptr);
}

// Teacher forcing's products, step t at a time (set by at()). What does not depend on the
// recurrence is made for all steps at once: the ê_{t-1} block of W_ih,0 with b_ih,0, and without
// attention W_ih,0's context block times the fixed c (Bahdanau style).
class DecoderImpl::Terms final : public DecoderTerms {
 public:
  Terms(DecoderImpl& decoder, const at::Tensor& embedded, const EncoderOutput& encoded, const at::Tensor& mask)
      : d_(decoder), memory_(encoded.memory), mask_(mask) {
    const DecoderLayout& layout = d_.layout_;
    const GruWeights& first = d_.layers_.front();
    if (d_.attention_) {
      keys_ = d_.attention_->precompute_keys(memory_);
    } else {
      fixed_context_ = top_final_states(encoded);  // c [batch, 2H]
    }
    // unbind, not select(1, t): select's backward would allocate a zero tensor of the whole size per step.
    embedding_gates_ =
        stable_linear(embedded, columns(first.weight_ih, *layout.find(layout.gru_input, DecoderInput::embedding)),
                      first.bias_ih)
            .unbind(1);  // T x [batch, 3D]
    const ColumnBlock* context = layout.find(layout.gru_input, DecoderInput::context);
    const ColumnBlock* feed = layout.find(layout.gru_input, DecoderInput::feed);
    other_block_ = columns(first.weight_ih, context != nullptr ? *context : *feed);
    if (context != nullptr && !d_.attention_) fixed_gates_ = stable_linear(fixed_context_, other_block_);
  }

  void at(std::int64_t t) { t_ = static_cast<std::size_t>(t); }

  AttendedContext attend(const at::Tensor& query) override {
    if (!d_.attention_) return {at::Tensor(), fixed_context_};
    const AttentionOutput out = d_.attention_->forward(query, keys_, memory_, mask_, static_cast<std::int64_t>(t_));
    return {out.weights, out.context};
  }

  at::Tensor first_layer_gates(const AttendedContext* attended, const at::Tensor& feed) override {
    const at::Tensor& gates = embedding_gates_[t_];
    if (attended == nullptr) return gates + stable_linear(feed, other_block_);  // input feeding
    return fixed_gates_.defined() ? gates + fixed_gates_ : gates + stable_linear(attended->context, other_block_);
  }

  at::Tensor input_gates(std::size_t layer, const at::Tensor& x) override {
    const GruWeights& w = d_.layers_[layer];
    return stable_linear(at::dropout(x, d_.config_.dropout, d_.is_training()), w.weight_ih, w.bias_ih);
  }

  at::Tensor hidden_gates(std::size_t layer, const at::Tensor& h) override {
    const GruWeights& w = d_.layers_[layer];
    return stable_linear(h, w.weight_hh, w.bias_hh);
  }

  // Read back at the next step (Luong style): made now; otherwise all steps at once, later.
  at::Tensor readout(const at::Tensor& top, const AttendedContext& attended) override {
    if (!d_.layout_.input_feeding()) return at::Tensor();
    return d_.readout_of({{DecoderInput::state, top}, {DecoderInput::context, attended.context}});
  }

 private:
  DecoderImpl& d_;
  at::Tensor memory_, mask_, keys_, fixed_context_, other_block_, fixed_gates_;
  std::vector<at::Tensor> embedding_gates_;
  std::size_t t_ = 0;
};

// r = tanh(W_r x + b_r), x the inputs side by side in the layout's order (any leading shape).
at::Tensor DecoderImpl::readout_of(const std::map<DecoderInput, at::Tensor>& inputs) const {
  std::vector<at::Tensor> parts;
  for (const ColumnBlock& block : layout_.readout) parts.push_back(inputs.at(block.input));
  return tanh_rows(stable_linear(at::cat(parts, -1), readout_->weight, readout_->bias));
}

DecoderSequence DecoderImpl::forward(const at::Tensor& embedded, const EncoderOutput& encoded, const at::Tensor& mask) {
  const std::int64_t steps = embedded.size(1);
  Terms terms(*this, embedded, encoded, mask);
  at::Tensor hidden = initial_hidden(encoded);
  at::Tensor feed;  // r_{t-1} with input feeding, r_0 = 0
  if (layout_.input_feeding()) feed = at::zeros({embedded.size(0), config_.readout_size()}, encoded.memory.options());
  std::vector<at::Tensor> tops, contexts, readouts, attention;
  attention.reserve(static_cast<std::size_t>(steps));
  for (std::int64_t t = 0; t < steps; ++t) {
    terms.at(t);
    DecoderStepOutput step = decoder_step(config_.decoder_style, terms, hidden, feed);
    hidden = step.hidden;
    if (attention_) attention.push_back(step.attended.weights);
    if (step.readout.defined()) {
      feed = step.readout;
      readouts.push_back(step.readout);
    } else {
      tops.push_back(hidden[-1]);
      contexts.push_back(step.attended.context);
    }
  }
  // [batch, tgt_len, src_len] from the steps' weights; undefined without attention.
  const at::Tensor weights = attention_ ? at::stack(attention, 1) : at::Tensor();
  if (layout_.input_feeding()) return {at::stack(readouts, 1), weights};
  // r_t = tanh(W_r [s_t; c_t; ê_{t-1}] + b_r) for all steps in one product.
  return {readout_of({{DecoderInput::state, at::stack(tops, 1)},
                      {DecoderInput::context, at::stack(contexts, 1)},
                      {DecoderInput::embedding, embedded}}),
          weights};
}

}  // namespace nmt
