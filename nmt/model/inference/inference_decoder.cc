#include "nmt/model/inference/inference_decoder.h"

#include <ATen/ATen.h>

#include "nmt/model/gru_cell.h"
#include "nmt/kernels/kernels.h"

namespace nmt {

std::unique_ptr<const InferenceDecoder> InferenceDecoder::make(const DecoderImpl& decoder, const ModelConfig& config,
                                                               const at::Tensor& target_embedding,
                                                               const c10::Device& device) {
  if (config.decoder_style == DecoderStyle::bahdanau) {
    return std::make_unique<BahdanauInferenceDecoder>(decoder, config, target_embedding, device);
  }
  return std::make_unique<LuongInferenceDecoder>(decoder, config, target_embedding, device);
}

InferenceDecoder::InferenceDecoder(const DecoderImpl& decoder, const ModelConfig& config,
                                   const std::vector<at::Tensor>& context_blocks, const at::Tensor& term_weight,
                                   const at::Tensor& term_bias, const at::Tensor& target_embedding,
                                   const c10::Device& device)
    : config_(config) {
  if (decoder.attention() != nullptr) attention_.emplace(decoder.attention()->parts(), device);
  for (std::size_t l = 0; l < decoder.layers().size(); ++l) {
    const GruWeights& w = decoder.layers()[l];
    layers_.push_back({l == 0 ? PackedLinear() : PackedLinear(w.weight_ih, w.bias_ih, device),
                       PackedLinear(w.weight_hh, w.bias_hh, device)});
  }
  if (decoder.bridge()) bridge_ = PackedLinear(decoder.bridge()->weight, decoder.bridge()->bias, device);
  projection_ = PackedLinear(at::cat(context_blocks, /*dim=*/0), at::Tensor(), device);
  // The table: one row of terms per target word (the embedding matrix's rows are the e's).
  terms_ = PackedLinear(term_weight, term_bias, device)(target_embedding.detach().to(device));
}

std::shared_ptr<InferenceState> InferenceDecoder::initial_state(const EncoderOutput& encoded,
                                                                const at::Tensor& mask) const {
  auto state = std::make_shared<InferenceState>();
  state->memory = encoded.memory;
  state->mask = mask;
  if (attention_) state->keys = attention_->keys(encoded.memory);
  const std::int64_t batch = encoded.memory.size(0);
  if (bridge_.defined()) {
    state->hidden = tanh_rows(bridge_(top_final_states(encoded))).unsqueeze(0).repeat({config_.decoder_layers, 1, 1}).contiguous();
  } else {
    state->hidden = at::zeros({config_.decoder_layers, batch, config_.decoder_hidden_size}, encoded.memory.options());
  }
  if (config_.decoder_style == DecoderStyle::luong) {
    state->feed = at::zeros({batch, config_.readout_size()}, encoded.memory.options());
  }
  // W_c h_j for every context block, once per sentence (without attention W_c c, c = [fwd_n; bwd_1]).
  state->projected = projection_(attention_ ? encoded.memory : top_final_states(encoded));
  return state;
}

InferenceDecoder::Attended InferenceDecoder::attend(const at::Tensor& query, const InferenceState& state) const {
  if (!attention_) {
    const at::Tensor& p = state.projected;  // [sources, P]: the same for every step
    return {at::Tensor(), state.source_rows.defined() ? p.index_select(0, state.source_rows.to(p.device())) : p};
  }
  Attended out;
  out.weights = attention_->weights(query, state.keys, state.mask, state.source_rows);
  out.projected = weighted_context(out.weights, state.projected, state.source_rows);
  return out;
}

InferenceStep InferenceDecoder::step(const at::Tensor& previous_tokens, const InferenceState& state) const {
  return step_terms(terms_.index_select(0, previous_tokens.to(terms_.device())), state);
}

// PyTorch's GRU cell per layer, as DecoderImpl::recur runs it (without dropout).
at::Tensor InferenceDecoder::recur(const at::Tensor& first_input_gates, const at::Tensor& hidden) const {
  std::vector<at::Tensor> states;
  states.reserve(layers_.size());
  at::Tensor input;
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    const at::Tensor input_gates = l == 0 ? first_input_gates : layers_[l].input(input);
    const at::Tensor h = hidden[static_cast<std::int64_t>(l)];
    input = gru_cell(input_gates, layers_[l].hidden(h), h);
    states.push_back(input);
  }
  return at::stack(states);
}

namespace {

// W[:, from:to] of a weight [rows, columns].
at::Tensor columns(const at::Tensor& weight, std::int64_t from, std::int64_t to) {
  return weight.slice(/*dim=*/1, from, to);
}

}  // namespace

// Column blocks of W_ih [3D, E + 2H] and W_r [R, D + 2H + E] (decoder.h).
BahdanauInferenceDecoder::BahdanauInferenceDecoder(const DecoderImpl& decoder, const ModelConfig& config,
                                                   const at::Tensor& target_embedding, const c10::Device& device)
    : InferenceDecoder(
          decoder, config,
          {columns(decoder.layers().front().weight_ih, config.embedding_size,
                   config.embedding_size + 2 * config.encoder_hidden_size),
           columns(decoder.readout()->weight, config.decoder_hidden_size,
                   config.decoder_hidden_size + 2 * config.encoder_hidden_size)},
          at::cat({columns(decoder.layers().front().weight_ih, 0, config.embedding_size),
                   columns(decoder.readout()->weight, config.decoder_hidden_size + 2 * config.encoder_hidden_size,
                           decoder.readout()->weight.size(1))}),
          at::cat({decoder.layers().front().bias_ih, decoder.readout()->bias}), target_embedding, device),
      readout_state_(columns(decoder.readout()->weight, 0, config.decoder_hidden_size), at::Tensor(), device) {}

InferenceStep BahdanauInferenceDecoder::step_terms(const at::Tensor& terms, const InferenceState& state) const {
  const std::int64_t G = 3 * config_.decoder_hidden_size;
  InferenceStep out;
  out.state = std::make_shared<InferenceState>(state);
  Attended attended = attend(state.hidden[-1], state);
  out.attention = std::move(attended.weights);
  const at::Tensor& p = attended.projected;  // [batch, 3D + R]
  out.state->hidden = recur(terms.narrow(1, 0, G) + p.narrow(1, 0, G), state.hidden);
  const at::Tensor s = out.state->hidden[-1];
  out.readout = tanh_rows(readout_state_(s) + terms.narrow(1, G, terms.size(1) - G) + p.narrow(1, G, p.size(1) - G));
  return out;
}

// Column blocks of W_ih [3D, E + R] and W_r [R, 2H + D] (decoder.h).
LuongInferenceDecoder::LuongInferenceDecoder(const DecoderImpl& decoder, const ModelConfig& config,
                                             const at::Tensor& target_embedding, const c10::Device& device)
    : InferenceDecoder(decoder, config, {columns(decoder.readout()->weight, 0, 2 * config.encoder_hidden_size)},
                       columns(decoder.layers().front().weight_ih, 0, config.embedding_size),
                       decoder.layers().front().bias_ih, target_embedding, device),
      feed_gates_(columns(decoder.layers().front().weight_ih, config.embedding_size,
                          decoder.layers().front().weight_ih.size(1)),
                  at::Tensor(), device),
      readout_state_(columns(decoder.readout()->weight, 2 * config.encoder_hidden_size, decoder.readout()->weight.size(1)),
                     decoder.readout()->bias, device) {}

InferenceStep LuongInferenceDecoder::step_terms(const at::Tensor& terms, const InferenceState& state) const {
  InferenceStep out;
  out.state = std::make_shared<InferenceState>(state);
  out.state->hidden = recur(terms + feed_gates_(state.feed), state.hidden);
  const at::Tensor s = out.state->hidden[-1];
  Attended attended = attend(s, state);
  out.attention = std::move(attended.weights);
  const at::Tensor& p = attended.projected;  // [batch, R]
  out.readout = tanh_rows(p + readout_state_(s));
  out.state->feed = out.readout;
  return out;
}

}  // namespace nmt
