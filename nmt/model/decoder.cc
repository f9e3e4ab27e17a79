#include "nmt/model/decoder.h"

#include <ATen/ATen.h>

#include <string>

#include "nmt/model/gru_cell.h"
#include "nmt/model/stable_linear.h"

namespace nmt {

DecoderImpl::DecoderImpl(const ModelConfig& config) : config_(config) {
  const std::int64_t E = config.embedding_size, H2 = 2 * config.encoder_hidden_size, D = config.decoder_hidden_size,
                     R = config.readout_size();
  const bool bahdanau = config.decoder_style == DecoderStyle::bahdanau;
  attention_ = register_module("attention", make_attention(config));
  // The GRU module only holds the parameters under PyTorch's names; recur() runs the cell.
  rnn_ = register_module("rnn", torch::nn::GRU(torch::nn::GRUOptions(bahdanau ? E + H2 : E + R, D)
                                                   .num_layers(config.decoder_layers)
                                                   .batch_first(true)));
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
    state.hidden = at::tanh(stable_linear(top, bridge_->weight, bridge_->bias)).unsqueeze(0).repeat({config_.decoder_layers, 1, 1}).contiguous();
  } else {
    state.hidden = at::zeros({config_.decoder_layers, batch, config_.decoder_hidden_size},
                             encoded.memory.options());
  }
  if (config_.decoder_style == DecoderStyle::luong) {
    state.feed = at::zeros({batch, config_.readout_size()}, encoded.memory.options());
  }
  return state;
}

// Looked up per call, not cached: the tensors stay those of the module whatever moves or loads it.
std::vector<DecoderImpl::Layer> DecoderImpl::layers() const {
  const auto named = rnn_->named_parameters(/*recurse=*/false);
  std::vector<Layer> layers;
  for (std::int64_t l = 0; l < config_.decoder_layers; ++l) {
    const std::string suffix = "_l" + std::to_string(l);
    layers.push_back({named["weight_ih" + suffix], named["weight_hh" + suffix], named["bias_ih" + suffix],
                      named["bias_hh" + suffix]});
  }
  return layers;
}

at::Tensor DecoderImpl::embedding_gates(const at::Tensor& embedded) const {
  const Layer first = layers().front();
  return stable_linear(embedded, first.weight_ih.slice(/*dim=*/1, 0, config_.embedding_size), first.bias_ih);
}

std::vector<at::Tensor> DecoderImpl::embedding_gate_parameters() const {
  const Layer first = layers().front();
  return {first.weight_ih, first.bias_ih};
}

// PyTorch's GRU cell (gru_cell.h), per layer (x: the layer's input, h: its previous state), on
//   [i_r; i_z; i_n] = W_ih x + b_ih,  [h_r; h_z; h_n] = W_hh h + b_hh.
// For the first layer x = [e; other], so W_ih x + b_ih = (W_ih[:, :E] e + b_ih) + W_ih[:, E:] other.
at::Tensor DecoderImpl::recur(const at::Tensor& embedding_gates, const at::Tensor& other_input,
                              const at::Tensor& hidden) {
  const std::vector<Layer> all = layers();
  std::vector<at::Tensor> states;
  states.reserve(all.size());
  at::Tensor input;
  for (std::size_t l = 0; l < all.size(); ++l) {
    const Layer& layer = all[l];
    at::Tensor input_gates;
    if (l == 0) {
      input_gates = embedding_gates + stable_linear(other_input, layer.weight_ih.slice(1, config_.embedding_size));
    } else {
      input_gates = stable_linear(at::dropout(input, config_.dropout, is_training()), layer.weight_ih, layer.bias_ih);
    }
    const at::Tensor h = hidden[static_cast<std::int64_t>(l)];
    input = gru_cell(input_gates, stable_linear(h, layer.weight_hh, layer.bias_hh), h);
    states.push_back(input);
  }
  return at::stack(states);
}

at::Tensor DecoderImpl::bahdanau_readout(const at::Tensor& s, const at::Tensor& context, const at::Tensor& embedded) {
  return at::tanh(stable_linear(at::cat({s, context, embedded}, -1), readout_->weight, readout_->bias));
}

at::Tensor DecoderImpl::luong_readout(const at::Tensor& context, const at::Tensor& s) {
  return at::tanh(stable_linear(at::cat({context, s}, -1), readout_->weight, readout_->bias));
}

DecoderStep DecoderImpl::step(const at::Tensor& embedded, const DecoderState& state, const at::Tensor& given_gates) {
  DecoderStep out;
  out.state = state;
  const at::Tensor gates = given_gates.defined() ? given_gates : embedding_gates(embedded);
  if (config_.decoder_style == DecoderStyle::bahdanau) {
    const AttentionOutput attended = attention_->forward(state.hidden[-1], state.keys, state.memory, state.mask, state.source_rows);
    out.state.hidden = recur(gates, attended.context, state.hidden);
    out.readout = bahdanau_readout(out.state.hidden[-1], attended.context, embedded);
    out.attention = attended.weights;
  } else {
    out.state.hidden = recur(gates, state.feed, state.hidden);
    const AttentionOutput attended = attention_->forward(out.state.hidden[-1], state.keys, state.memory, state.mask, state.source_rows);
    out.readout = luong_readout(attended.context, out.state.hidden[-1]);
    out.attention = attended.weights;
    out.state.feed = out.readout;
  }
  return out;
}

DecoderSequence DecoderImpl::forward(const at::Tensor& embedded, DecoderState state) {
  const std::int64_t steps = embedded.size(1);
  // unbind, not select(1, t): select's backward would allocate a zero tensor of the whole size per step.
  const std::vector<at::Tensor> gates = embedding_gates(embedded).unbind(1);  // T x [batch, 3D]
  std::vector<at::Tensor> tops, contexts, readouts, attention;
  attention.reserve(static_cast<std::size_t>(steps));
  for (std::int64_t t = 0; t < steps; ++t) {
    const auto u = static_cast<std::size_t>(t);
    if (config_.decoder_style == DecoderStyle::bahdanau) {
      const AttentionOutput attended = attention_->forward(state.hidden[-1], state.keys, state.memory, state.mask, state.source_rows);
      state.hidden = recur(gates[u], attended.context, state.hidden);
      tops.push_back(state.hidden[-1]);
      contexts.push_back(attended.context);
      attention.push_back(attended.weights);
    } else {
      state.hidden = recur(gates[u], state.feed, state.hidden);
      const AttentionOutput attended = attention_->forward(state.hidden[-1], state.keys, state.memory, state.mask, state.source_rows);
      state.feed = luong_readout(attended.context, state.hidden[-1]);
      readouts.push_back(state.feed);
      attention.push_back(attended.weights);
    }
  }
  at::Tensor readout = config_.decoder_style == DecoderStyle::bahdanau
                           ? bahdanau_readout(at::stack(tops, 1), at::stack(contexts, 1), embedded)
                           : at::stack(readouts, 1);
  return {readout, at::stack(attention, 1)};
}

}  // namespace nmt
