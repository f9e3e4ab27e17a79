#include "nmt/model/decoder.h"

#include <ATen/ATen.h>

#include "nmt/kernels/kernels.h"

namespace nmt {

DecoderImpl::DecoderImpl(const ModelConfig& config) : config_(config) {
  const std::int64_t E = config.embedding_size, H2 = 2 * config.encoder_hidden_size, D = config.decoder_hidden_size,
                     R = config.readout_size();
  const bool bahdanau = config.decoder_style == DecoderStyle::bahdanau;
  if (config.has_attention()) attention_ = register_module("attention", make_attention(config));
  // The GRU module only holds the parameters under PyTorch's names; recur() runs the cell.
  rnn_ = register_module("rnn", torch::nn::GRU(torch::nn::GRUOptions(bahdanau ? E + H2 : E + R, D)
                                                   .num_layers(config.decoder_layers)
                                                   .batch_first(true)));
  for (std::int64_t l = 0; l < config.decoder_layers; ++l) layers_.push_back(gru_weights(rnn_, l));
  if (config.bridge == BridgeType::linear) bridge_ = register_module("bridge", torch::nn::Linear(H2, D));
  readout_ = register_module("readout", torch::nn::Linear(bahdanau ? D + H2 + E : H2 + D, R));
}

at::Tensor DecoderImpl::initial_hidden(const EncoderOutput& encoded) {
  if (!bridge_) {
    return at::zeros({config_.decoder_layers, encoded.memory.size(0), config_.decoder_hidden_size},
                     encoded.memory.options());
  }
  const at::Tensor s0 = tanh_rows(stable_linear(top_final_states(encoded), bridge_->weight, bridge_->bias));
  return s0.unsqueeze(0).repeat({config_.decoder_layers, 1, 1}).contiguous();
}

// PyTorch's GRU cell (gru_cell.h), per layer (x: the layer's input, h: its previous state), on
//   [i_r; i_z; i_n] = W_ih x + b_ih,  [h_r; h_z; h_n] = W_hh h + b_hh.
// For the first layer x = [e; other], so W_ih x + b_ih = (W_ih[:, :E] e + b_ih) + W_ih[:, E:] other:
// the caller gives it.
at::Tensor DecoderImpl::recur(const at::Tensor& first_input_gates, const at::Tensor& hidden) {
  std::vector<at::Tensor> states;
  states.reserve(layers_.size());
  at::Tensor input;
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    const GruWeights& layer = layers_[l];
    const at::Tensor input_gates =
        l == 0 ? first_input_gates
               : stable_linear(at::dropout(input, config_.dropout, is_training()), layer.weight_ih, layer.bias_ih);
    const at::Tensor h = hidden[static_cast<std::int64_t>(l)];
    input = gru_cell(input_gates, stable_linear(h, layer.weight_hh, layer.bias_hh), h);
    states.push_back(input);
  }
  return at::stack(states);
}

DecoderSequence DecoderImpl::forward(const at::Tensor& embedded, const EncoderOutput& encoded, const at::Tensor& mask) {
  const std::int64_t E = config_.embedding_size, steps = embedded.size(1);
  const at::Tensor& memory = encoded.memory;
  const at::Tensor keys = attention_ ? attention_->precompute_keys(memory) : at::Tensor();
  const at::Tensor fixed_context = attention_ ? at::Tensor() : top_final_states(encoded);  // c [batch, 2H]
  // c_t and a_t at one step from the query (s_{t-1} or s_t); the fixed c without attention.
  const auto attend = [&](const at::Tensor& query) {
    return attention_ ? attention_->forward(query, keys, memory, mask) : AttentionOutput{fixed_context, at::Tensor()};
  };
  const at::Tensor W_ih = layers_.front().weight_ih;
  at::Tensor hidden = initial_hidden(encoded);
  // unbind, not select(1, t): select's backward would allocate a zero tensor of the whole size per step.
  const std::vector<at::Tensor> gates =
      stable_linear(embedded, W_ih.slice(/*dim=*/1, 0, E), layers_.front().bias_ih).unbind(1);  // T x [batch, 3D]
  const auto other_input_gates = [&](const at::Tensor& other) { return stable_linear(other, W_ih.slice(/*dim=*/1, E)); };
  std::vector<at::Tensor> tops, contexts, readouts, attention;
  attention.reserve(static_cast<std::size_t>(steps));
  // [batch, tgt_len, src_len] from the steps' weights; undefined without attention.
  const auto stacked_attention = [&] { return attention_ ? at::stack(attention, 1) : at::Tensor(); };
  if (config_.decoder_style == DecoderStyle::bahdanau) {
    // Without attention W_ih[:, E:] c is the same at every step: one product.
    const at::Tensor fixed_gates = attention_ ? at::Tensor() : other_input_gates(fixed_context);
    for (std::int64_t t = 0; t < steps; ++t) {
      const AttentionOutput attended = attend(hidden[-1]);
      const at::Tensor& gate = gates[static_cast<std::size_t>(t)];
      hidden = recur(attention_ ? gate + other_input_gates(attended.context) : gate + fixed_gates, hidden);
      tops.push_back(hidden[-1]);
      contexts.push_back(attended.context);
      if (attention_) attention.push_back(attended.weights);
    }
    // r_t = tanh(W_r [s_t; c_t; e_{t-1}] + b_r) for all steps in one product.
    const at::Tensor readout_input = at::cat({at::stack(tops, 1), at::stack(contexts, 1), embedded}, -1);
    return {tanh_rows(stable_linear(readout_input, readout_->weight, readout_->bias)), stacked_attention()};
  }
  at::Tensor feed = at::zeros({embedded.size(0), config_.readout_size()}, memory.options());  // r_0 = 0
  for (std::int64_t t = 0; t < steps; ++t) {
    hidden = recur(gates[static_cast<std::size_t>(t)] + other_input_gates(feed), hidden);
    const AttentionOutput attended = attend(hidden[-1]);
    feed = tanh_rows(stable_linear(at::cat({attended.context, hidden[-1]}, -1), readout_->weight, readout_->bias));
    readouts.push_back(feed);
    if (attention_) attention.push_back(attended.weights);
  }
  return {at::stack(readouts, 1), stacked_attention()};
}

}  // namespace nmt
