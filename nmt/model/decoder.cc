#include "nmt/model/decoder.h"

#include <ATen/ATen.h>

namespace nmt {

DecoderImpl::DecoderImpl(const ModelConfig& config) : config_(config) {
  const std::int64_t E = config.embedding_size, H2 = 2 * config.encoder_hidden_size, D = config.decoder_hidden_size,
                     R = config.readout_size();
  const bool bahdanau = config.decoder_style == DecoderStyle::bahdanau;
  attention_ = register_module("attention", make_attention(config));
  rnn_ = register_module("rnn", torch::nn::GRU(torch::nn::GRUOptions(bahdanau ? E + H2 : E + R, D)
                                                   .num_layers(config.decoder_layers)
                                                   .batch_first(true)
                                                   .dropout(config.decoder_layers > 1 ? config.dropout : 0.0)));
  if (config.bridge == BridgeType::linear) bridge_ = register_module("bridge", torch::nn::Linear(H2, D));
  readout_ = register_module("readout", torch::nn::Linear(bahdanau ? D + H2 + E : H2 + D, R));
}

DecoderState DecoderImpl::initial_state(const EncoderOutput& encoded, const at::Tensor& mask) {
  DecoderState state;
  state.memory = encoded.memory;
  state.mask = mask;
  state.keys = attention_->precompute_keys(encoded.memory);
  const std::int64_t batch = encoded.memory.size(0);
  if (bridge_) {
    // h_n holds [layer0 fwd, layer0 bwd, layer1 fwd, ...]: the top layer is the last two.
    const std::int64_t n = encoded.final_states.size(0);
    const at::Tensor top = at::cat({encoded.final_states[n - 2], encoded.final_states[n - 1]}, /*dim=*/-1);
    state.hidden = at::tanh(bridge_(top)).unsqueeze(0).repeat({config_.decoder_layers, 1, 1}).contiguous();
  } else {
    state.hidden = at::zeros({config_.decoder_layers, batch, config_.decoder_hidden_size},
                             encoded.memory.options());
  }
  if (config_.decoder_style == DecoderStyle::luong) {
    state.feed = at::zeros({batch, config_.readout_size()}, encoded.memory.options());
  }
  return state;
}

DecoderStep DecoderImpl::step(const at::Tensor& embedded, const DecoderState& state) {
  DecoderStep out;
  out.state = state;
  if (config_.decoder_style == DecoderStyle::bahdanau) {
    const AttentionOutput attended = attention_->forward(state.hidden[-1], state.keys, state.memory, state.mask);
    auto [output, hidden] = rnn_->forward(at::cat({embedded, attended.context}, -1).unsqueeze(1), state.hidden);
    const at::Tensor s = output.squeeze(1);
    out.readout = at::tanh(readout_(at::cat({s, attended.context, embedded}, -1)));
    out.attention = attended.weights;
    out.state.hidden = hidden;
  } else {
    auto [output, hidden] = rnn_->forward(at::cat({embedded, state.feed}, -1).unsqueeze(1), state.hidden);
    const at::Tensor s = output.squeeze(1);
    const AttentionOutput attended = attention_->forward(s, state.keys, state.memory, state.mask);
    out.readout = at::tanh(readout_(at::cat({attended.context, s}, -1)));
    out.attention = attended.weights;
    out.state.hidden = hidden;
    out.state.feed = out.readout;
  }
  return out;
}

}  // namespace nmt
