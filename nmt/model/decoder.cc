#include "nmt/model/decoder.h"

#include <ATen/ATen.h>

#include <string>

#include "nmt/model/gru_cell.h"
#include "nmt/model/kernels.h"
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

DecoderState DecoderImpl::initial_state(const EncoderOutput& encoded, const at::Tensor& mask, bool for_steps) {
  DecoderState state;
  state.memory = encoded.memory;
  state.mask = mask;
  state.keys = attention_->precompute_keys(encoded.memory);
  const std::int64_t batch = encoded.memory.size(0);
  if (bridge_) {
    // h_n holds [layer0 fwd, layer0 bwd, layer1 fwd, ...]: the top layer is the last two.
    const std::int64_t n = encoded.final_states.size(0);
    const at::Tensor top = at::cat({encoded.final_states[n - 2], encoded.final_states[n - 1]}, /*dim=*/-1);
    state.hidden = tanh_rows(stable_linear(top, bridge_->weight, bridge_->bias)).unsqueeze(0).repeat({config_.decoder_layers, 1, 1}).contiguous();
  } else {
    state.hidden = at::zeros({config_.decoder_layers, batch, config_.decoder_hidden_size},
                             encoded.memory.options());
  }
  if (config_.decoder_style == DecoderStyle::luong) {
    state.feed = at::zeros({batch, config_.readout_size()}, encoded.memory.options());
  }
  // Inference on the CPU: W_c h_j for every context block, once per sentence (projected_step()).
  const std::vector<at::Tensor> blocks = for_steps && !is_training() ? context_blocks() : std::vector<at::Tensor>();
  if (!blocks.empty() && inference_kernels_apply(encoded.memory, blocks.front())) {
    std::vector<at::Tensor> projected;
    for (const at::Tensor& block : blocks) projected.push_back(stable_linear(encoded.memory, block));
    state.projected = projected.size() == 1 ? projected.front() : at::cat(projected, /*dim=*/-1);
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

at::Tensor DecoderImpl::embedding_terms(const at::Tensor& embedded) const {
  const at::Tensor gates = embedding_gates(embedded);
  if (config_.decoder_style != DecoderStyle::bahdanau) return gates;
  const std::int64_t from = config_.decoder_hidden_size + 2 * config_.encoder_hidden_size;  // W_r[:, D+2H:]
  return at::cat({gates, stable_linear(embedded, readout_->weight.slice(/*dim=*/1, from), readout_->bias)}, -1);
}

std::vector<at::Tensor> DecoderImpl::embedding_term_parameters() const {
  const Layer first = layers().front();
  if (config_.decoder_style != DecoderStyle::bahdanau) return {first.weight_ih, first.bias_ih};
  return {first.weight_ih, first.bias_ih, readout_->weight, readout_->bias};
}

std::vector<at::Tensor> DecoderImpl::context_blocks() const {
  const std::int64_t E = config_.embedding_size, H2 = 2 * config_.encoder_hidden_size,
                     D = config_.decoder_hidden_size;
  if (config_.decoder_style == DecoderStyle::bahdanau) {
    return {layers().front().weight_ih.slice(/*dim=*/1, E, E + H2), readout_->weight.slice(/*dim=*/1, D, D + H2)};
  }
  return {readout_->weight.slice(/*dim=*/1, 0, H2)};
}

at::Tensor DecoderImpl::other_input_gates(const at::Tensor& other_input) const {
  return stable_linear(other_input, layers().front().weight_ih.slice(/*dim=*/1, config_.embedding_size));
}

// PyTorch's GRU cell (gru_cell.h), per layer (x: the layer's input, h: its previous state), on
//   [i_r; i_z; i_n] = W_ih x + b_ih,  [h_r; h_z; h_n] = W_hh h + b_hh.
// For the first layer x = [e; other], so W_ih x + b_ih = (W_ih[:, :E] e + b_ih) + W_ih[:, E:] other:
// the caller gives it.
at::Tensor DecoderImpl::recur(const at::Tensor& first_input_gates, const at::Tensor& hidden) {
  const std::vector<Layer> all = layers();
  std::vector<at::Tensor> states;
  states.reserve(all.size());
  at::Tensor input;
  for (std::size_t l = 0; l < all.size(); ++l) {
    const Layer& layer = all[l];
    at::Tensor input_gates;
    if (l == 0) {
      input_gates = first_input_gates;
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
  return tanh_rows(stable_linear(at::cat({s, context, embedded}, -1), readout_->weight, readout_->bias));
}

at::Tensor DecoderImpl::luong_readout(const at::Tensor& context, const at::Tensor& s) {
  return tanh_rows(stable_linear(at::cat({context, s}, -1), readout_->weight, readout_->bias));
}

DecoderStep DecoderImpl::step(const at::Tensor& embedded, const DecoderState& state, const at::Tensor& terms) {
  // The projections were made by encode() in inference; a state stepped in another mode (grad on,
  // training) takes the equations as written, from the memory the state also carries.
  if (state.projected.defined() && !is_training() && inference_kernels_apply(state.projected, readout_->weight)) {
    return projected_step(terms.defined() ? terms : embedding_terms(embedded), state);
  }
  DecoderStep out;
  out.state = state;
  const at::Tensor gates = terms.defined() ? terms.narrow(/*dim=*/1, 0, 3 * config_.decoder_hidden_size)
                                           : embedding_gates(embedded);
  if (config_.decoder_style == DecoderStyle::bahdanau) {
    const AttentionOutput attended = attention_->forward(state.hidden[-1], state.keys, state.memory, state.mask, state.source_rows);
    out.state.hidden = recur(gates + other_input_gates(attended.context), state.hidden);
    out.readout = bahdanau_readout(out.state.hidden[-1], attended.context, embedded);
    out.attention = attended.weights;
  } else {
    out.state.hidden = recur(gates + other_input_gates(state.feed), state.hidden);
    const AttentionOutput attended = attention_->forward(out.state.hidden[-1], state.keys, state.memory, state.mask, state.source_rows);
    out.readout = luong_readout(attended.context, out.state.hidden[-1]);
    out.attention = attended.weights;
    out.state.feed = out.readout;
  }
  return out;
}

// The step with the context blocks W_c moved onto the memory: p_t = sum_j a_tj P_j with
// P_j = state.projected[j] = [W_c h_j for each block] gives every W_c c_t without c_t itself.
// Bahdanau style: p_t = [W_ih[:, E:E+2H] c_t ; W_r[:, D:D+2H] c_t] and, with the terms of e_{t-1},
//   s_t = GRU(gates_e + p_t[:3D], s_{t-1}),  r_t = tanh(W_r[:, :D] s_t + (W_r[:, D+2H:] e + b_r) + p_t[3D:]).
// Luong style: p_t = W_r[:, :2H] c_t and r_t = tanh(p_t + W_r[:, 2H:] s_t + b_r).
// Per decoder row that is m P multiply-adds (m: the sentence's real positions) instead of m 2H for
// c_t and 2H P for the products: 37 K instead of 543 K at the reference size (P = 1024) and m = 36,
// a sixth of all a step's multiply-adds; the projections cost 2H P per source position, once.
DecoderStep DecoderImpl::projected_step(const at::Tensor& terms, const DecoderState& state) {
  const std::int64_t G = 3 * config_.decoder_hidden_size, D = config_.decoder_hidden_size,
                     H2 = 2 * config_.encoder_hidden_size;
  DecoderStep out;
  out.state = state;
  if (config_.decoder_style == DecoderStyle::bahdanau) {
    out.attention = attention_->weights(state.hidden[-1], state.keys, state.mask, state.source_rows);
    const at::Tensor p = weighted_context(out.attention, state.projected, state.source_rows);  // [batch, 3D + R]
    out.state.hidden = recur(terms.narrow(1, 0, G) + p.narrow(1, 0, G), state.hidden);
    const at::Tensor s = out.state.hidden[-1];
    out.readout = tanh_rows(stable_linear(s, readout_->weight.slice(/*dim=*/1, 0, D)) + terms.narrow(1, G, terms.size(1) - G) +
                            p.narrow(1, G, p.size(1) - G));
  } else {
    out.state.hidden = recur(terms + other_input_gates(state.feed), state.hidden);
    const at::Tensor s = out.state.hidden[-1];
    out.attention = attention_->weights(s, state.keys, state.mask, state.source_rows);
    const at::Tensor p = weighted_context(out.attention, state.projected, state.source_rows);  // [batch, R]
    out.readout = tanh_rows(p + stable_linear(s, readout_->weight.slice(/*dim=*/1, H2), readout_->bias));
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
      state.hidden = recur(gates[u] + other_input_gates(attended.context), state.hidden);
      tops.push_back(state.hidden[-1]);
      contexts.push_back(attended.context);
      attention.push_back(attended.weights);
    } else {
      state.hidden = recur(gates[u] + other_input_gates(state.feed), state.hidden);
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
