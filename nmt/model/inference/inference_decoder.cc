#include "nmt/model/inference/inference_decoder.h"

#include <ATen/ATen.h>

#include "nmt/kernels/kernels.h"
#include "nmt/model/gru_cell.h"

namespace nmt {

InferenceDecoder::InferenceDecoder(const DecoderImpl& decoder, const ModelConfig& config,
                                   const at::Tensor& target_embedding, const c10::Device& device,
                                   const InferencePrecision& precision)
    : config_(config),
      layout_(decoder.layout()),
      gates_(3 * config.decoder_hidden_size),
      int8_positions_(precision.memory && device.is_cpu()) {
  const Precision step = InferencePrecision::of_group(precision.decoder);
  const Precision memory = InferencePrecision::of_group(precision.attention);
  if (decoder.attention() != nullptr) {
    attention_.emplace(decoder.attention()->parts(), decoder.attention()->normaliser(),
                       decoder.attention()->window_parts(), device, memory);
  }
  for (std::size_t l = 0; l < decoder.layers().size(); ++l) {
    const GruWeights& w = decoder.layers()[l];
    layers_.push_back({l == 0 ? PackedLinear() : PackedLinear(w.weight_ih, w.bias_ih, device, step),
                       PackedLinear(w.weight_hh, w.bias_hh, device, step)});
  }
  if (decoder.bridge()) bridge_ = PackedLinear(decoder.bridge()->weight, decoder.bridge()->bias, device);

  const GruWeights& first = decoder.layers().front();
  const at::Tensor& W_r = decoder.readout()->weight;
  const at::Tensor& b_r = decoder.readout()->bias;
  const auto gru_block = [&](DecoderInput input) { return DecoderLayout::find(layout_.gru_input, input); };
  const auto readout_block = [&](DecoderInput input) { return DecoderLayout::find(layout_.readout, input); };
  gru_reads_context_ = gru_block(DecoderInput::context) != nullptr;
  readout_reads_embedding_ = readout_block(DecoderInput::embedding) != nullptr;

  // The blocks that read c_t, applied to the memory once per sentence.
  std::vector<at::Tensor> context_blocks;
  if (gru_reads_context_) context_blocks.push_back(columns(first.weight_ih, *gru_block(DecoderInput::context)));
  context_blocks.push_back(columns(W_r, *readout_block(DecoderInput::context)));
  projection_ = PackedLinear(at::cat(context_blocks, /*dim=*/0), at::Tensor(), device, memory);

  // The table: one row of terms per target word (the embedding matrix's rows are the ê's).
  std::vector<at::Tensor> term_weights = {columns(first.weight_ih, *gru_block(DecoderInput::embedding))};
  std::vector<at::Tensor> term_biases = {first.bias_ih};
  if (readout_reads_embedding_) {
    term_weights.push_back(columns(W_r, *readout_block(DecoderInput::embedding)));
    term_biases.push_back(b_r);
  }
  terms_ = PackedLinear(at::cat(term_weights), at::cat(term_biases), device)(target_embedding.detach().to(device));

  if (const ColumnBlock* feed = gru_block(DecoderInput::feed)) {
    feed_gates_ = PackedLinear(columns(first.weight_ih, *feed), at::Tensor(), device, step);
  }
  readout_state_ = PackedLinear(columns(W_r, *readout_block(DecoderInput::state)),
                                readout_reads_embedding_ ? at::Tensor() : b_r, device, step);
}

std::shared_ptr<InferenceState> InferenceDecoder::initial_state(const EncoderOutput& encoded,
                                                                const at::Tensor& mask) const {
  auto state = std::make_shared<InferenceState>();
  state->memory = encoded.memory;
  state->mask = mask;
  if (attention_) state->keys = attention_->keys(encoded.memory);
  const Product bridge = [&](const at::Tensor& x) { return bridge_(x); };
  state->hidden = initial_decoder_state(encoded, config_.decoder_layers, config_.decoder_hidden_size,
                                        bridge_.defined() ? &bridge : nullptr);
  if (layout_.input_feeding()) {
    state->feed = at::zeros({encoded.memory.size(0), config_.readout_size()}, encoded.memory.options());
  }
  // W_c h_j for every context block, once per sentence (without attention W_c c, c = [fwd_n; bwd_1]).
  state->projected = projection_(attention_ ? encoded.memory : top_final_states(encoded));
  if (int8_positions_ && attention_) {  // the tables every step reads whole, a byte a value
    Int8Positions projected = quantize_positions(state->projected);
    state->projected = std::move(projected.values);
    state->projected_scales = std::move(projected.scales);
    if (attention_->scores_by_dot()) {
      Int8Positions keys = quantize_positions(state->keys);
      state->keys = std::move(keys.values);
      state->keys_scales = std::move(keys.scales);
    }
  }
  return state;
}

// One step's products: the table's row of each previous token (`terms` [batch, T]) and the
// context's projections p_t [batch, P]: W_ih,0's block first (its 3D gates), then W_r's (R).
class InferenceDecoder::Terms final : public DecoderTerms {
 public:
  Terms(const InferenceDecoder& decoder, const InferenceState& state, at::Tensor terms)
      : d_(decoder), state_(state), terms_(std::move(terms)) {}

  AttendedContext attend(const at::Tensor& query) override {
    if (!d_.attention_) {
      const at::Tensor& p = state_.projected;  // [sources, P]: the same for every step
      return {at::Tensor(), state_.source_rows.defined() ? p.index_select(0, state_.source_rows.to(p.device())) : p};
    }
    AttendedContext out;
    out.weights = d_.attention_->weights(query, state_.keys, state_.mask, state_.source_rows, state_.steps,
                                         state_.keys_scales);
    out.context = weighted_context(out.weights, state_.projected, state_.source_rows, state_.projected_scales);
    return out;
  }

  at::Tensor first_layer_gates(const AttendedContext* attended, const at::Tensor& feed) override {
    const at::Tensor gates = terms_.narrow(1, 0, d_.gates_);
    if (d_.gru_reads_context_) return gates + attended->context.narrow(1, 0, d_.gates_);
    return gates + d_.feed_gates_(feed);
  }

  at::Tensor input_gates(std::size_t layer, const at::Tensor& x) override { return d_.layers_[layer].input(x); }
  at::Tensor hidden_gates(std::size_t layer, const at::Tensor& h) override { return d_.layers_[layer].hidden(h); }

  // r_t = tanh(W_r[s] s_t (+ b_r) [+ (W_r[ê] ê + b_r) from the table] + p_t's readout block).
  at::Tensor readout(const at::Tensor& top, const AttendedContext& attended) override {
    at::Tensor r = d_.readout_state_(top);
    if (d_.readout_reads_embedding_) r = r + terms_.narrow(1, d_.gates_, terms_.size(1) - d_.gates_);
    const std::int64_t skip = d_.gru_reads_context_ ? d_.gates_ : 0;
    return tanh_rows(r + attended.context.narrow(1, skip, attended.context.size(1) - skip));
  }

 private:
  const InferenceDecoder& d_;
  const InferenceState& state_;
  at::Tensor terms_;
};

InferenceStep InferenceDecoder::step(const at::Tensor& previous_tokens, const InferenceState& state) const {
  Terms terms(*this, state, terms_.index_select(0, previous_tokens.to(terms_.device())));
  DecoderStepOutput out = decoder_step(config_.decoder_style, terms, state.hidden, state.feed);
  InferenceStep step;
  step.state = std::make_shared<InferenceState>(state);
  step.state->hidden = std::move(out.hidden);
  step.state->steps = state.steps + 1;
  if (layout_.input_feeding()) step.state->feed = out.readout;
  step.readout = std::move(out.readout);
  step.attention = std::move(out.attended.weights);
  return step;
}

std::shared_ptr<const InferenceDecoder> InferenceDecoder::with_hard_attention() const {
  auto copy = std::make_shared<InferenceDecoder>(*this);  // the packed products and tables are shared
  copy->attention_ = attention_.value().hardened();
  return copy;
}

}  // namespace nmt
