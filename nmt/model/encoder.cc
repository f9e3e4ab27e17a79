#include "nmt/model/encoder.h"

#include <ATen/ATen.h>
#include <ATen/Dispatch.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "nmt/model/gru_cell.h"
#include "nmt/kernels/kernels.h"

namespace nmt {

EncoderImpl::EncoderImpl(const ModelConfig& config)
    : dropout_(config.encoder_layers > 1 ? config.dropout : 0.0) {
  // The module holds the parameters under PyTorch's names (rnn.weight_ih_l0, ..._reverse), so
  // checkpoints read in Python as an nn.GRU; forward() runs them itself (see below).
  rnn_ = register_module(
      "rnn", torch::nn::GRU(torch::nn::GRUOptions(config.embedding_size, config.encoder_hidden_size)
                                .num_layers(config.encoder_layers)
                                .bidirectional(true)
                                .batch_first(true)));
  for (std::int64_t l = 0; l < config.encoder_layers; ++l) layers_.push_back({gru_weights(rnn_, l), gru_weights(rnn_, l, true)});
}

void EncoderImpl::to(torch::Device device, torch::Dtype dtype, bool non_blocking) {
  torch::nn::Module::to(device, dtype, non_blocking);
  flatten_directions_for_cudnn();
}

void EncoderImpl::to(torch::Dtype dtype, bool non_blocking) {
  torch::nn::Module::to(dtype, non_blocking);
  flatten_directions_for_cudnn();
}

void EncoderImpl::to(torch::Device device, bool non_blocking) {
  torch::nn::Module::to(device, non_blocking);
  flatten_directions_for_cudnn();
}

// cuDNN runs a GRU from one flat buffer of its weights, and at::gru takes that buffer to be the
// storage of the first weight it is given, read from the storage's start. nn::GRU's own flattening
// (its .to(cuda)) puts every layer and direction into one buffer, so only the first forward
// direction found its weights in place: every other call warned "RNN module weights are not part
// of single contiguous chunk of memory" (about 25 lines a second of training on an H100) and
// copied them. Here each direction's four weights become views of a buffer of their own, as
// nn::GRU::flatten_parameters does for a whole module; the tensors keep their identity, so
// layers_, the optimizer and the checkpoint code hold the same parameters.
bool flatten_gru_direction_for_cudnn(const GruWeights& w) {
  const std::vector<at::Tensor> weights{w.weight_ih, w.weight_hh, w.bias_ih, w.bias_hh};
  for (const at::Tensor& weight : weights) {
    if (!weight.defined() || !weight.is_cuda() || !at::cudnn_is_acceptable(weight) ||
        weight.scalar_type() != w.weight_ih.scalar_type()) {
      return false;
    }
  }
  if (!at::_use_cudnn_rnn_flatten_weight()) return false;
  at::NoGradGuard no_grad;
  at::_cudnn_rnn_flatten_weight(weights, /*weight_stride0=*/4, /*input_size=*/w.weight_ih.size(1),
                                /*mode: CUDNN_GRU*/ 3, /*hidden_size=*/w.weight_hh.size(1), /*proj_size=*/0,
                                /*num_layers=*/1, /*batch_first=*/true, /*bidirectional=*/false);
  return true;
}

void EncoderImpl::flatten_directions_for_cudnn() {
  for (const auto& layer : layers_) {
    for (const GruWeights& w : layer) flatten_gru_direction_for_cudnn(w);
  }
}

at::Tensor top_final_states(const EncoderOutput& encoded) {
  const std::int64_t n = encoded.final_states.size(0);
  return at::cat({encoded.final_states[n - 2], encoded.final_states[n - 1]}, /*dim=*/-1);
}

at::Tensor source_mask(std::int64_t src_len, const at::Tensor& lengths) {
  return at::arange(src_len, lengths.options()).unsqueeze(0).lt(lengths.unsqueeze(1));
}

// at::gru's BLAS products are not row-invariant (nmt/kernels/kernels.h): without autograd the cell runs
// with the caller's products instead.
at::Tensor run_gru_direction(const at::Tensor& input, const GruWeights& w, bool training, const Product& input_gates,
                             const Product& hidden_gates) {
  if (!inference_kernels_apply(input, w.weight_ih)) {
    const at::Tensor h0 = at::zeros({1, input.size(0), w.weight_hh.size(1)}, input.options());
    return std::get<0>(at::gru(input, h0, {w.weight_ih, w.weight_hh, w.bias_ih, w.bias_hh}, /*has_biases=*/true,
                               /*num_layers=*/1, /*dropout=*/0.0, training, /*bidirectional=*/false,
                               /*batch_first=*/true));
  }
  return gru_states(input_gates(input), hidden_gates);  // input gates [batch, src_len, 3H], all steps at once
}

namespace {

// [fwd[b, t]; bwd[b, len_b - 1 - t]] at the real positions t < len_b and [fwd[b, t]; bwd[b, t]]
// at the padding, times 0 there when `zero_padding`: forward [batch, src_len, H] and backward
// [batch, src_len, H] in its walking order (each row reversed within its length) ->
// [batch, src_len, 2H]. The bits of the tensor expression in encode_bidirectional (a gather that
// permutes the backward states, a cat, a product with the float mask: four fresh tensors, where
// this is one pass over memory; docs/benchmarks.md, "The encoder's join"), the padding's signed
// zeros included. For the CPU without gradients (inference_kernels_apply).
at::Tensor join_directions(const at::Tensor& forward, const at::Tensor& backward, const at::Tensor& length,
                           bool zero_padding) {
  const std::int64_t batch = forward.size(0), src_len = forward.size(1), hidden = forward.size(2);
  const at::Tensor fwd = forward.contiguous(), bwd = backward.contiguous();
  const at::Tensor lengths = length.to(at::kCPU).contiguous();
  at::Tensor out = at::empty({batch, src_len, 2 * hidden}, fwd.options());
  AT_DISPATCH_FLOATING_TYPES(fwd.scalar_type(), "join_directions", [&] {
    const auto* f = fwd.data_ptr<scalar_t>();
    const auto* g = bwd.data_ptr<scalar_t>();
    auto* o = out.data_ptr<scalar_t>();
    const auto* len = lengths.data_ptr<std::int64_t>();
    const auto row_bytes = static_cast<std::size_t>(hidden) * sizeof(scalar_t);
    const scalar_t padding_factor = zero_padding ? scalar_t(0) : scalar_t(1);
    for (std::int64_t b = 0; b < batch; ++b) {
      const std::int64_t n = std::min(len[b], src_len);
      for (std::int64_t t = 0; t < src_len; ++t) {
        scalar_t* to = o + (b * src_len + t) * 2 * hidden;
        const scalar_t* from_forward = f + (b * src_len + t) * hidden;
        if (t < n) {
          std::memcpy(to, from_forward, row_bytes);
          std::memcpy(to + hidden, g + (b * src_len + n - 1 - t) * hidden, row_bytes);
          continue;
        }
        const scalar_t* from_backward = g + (b * src_len + t) * hidden;  // the permutation keeps the padding
        for (std::int64_t k = 0; k < hidden; ++k) {
          to[k] = from_forward[k] * padding_factor;  // -0 for a negative state, NaN for NaN: the mask's product
          to[hidden + k] = from_backward[k] * padding_factor;
        }
      }
    }
  });
  return out;
}

}  // namespace

// Why not pack_padded_sequence: LibTorch's packed GRU backward allocates and zero-fills a
// full-size gradient at every time step, which made the encoder half the cost of a training step
// (docs/benchmarks.md). Here both directions run dense over the padded batch:
//   forward:  over positions 1 .. S as they are; states at padding come after every real one;
//   backward: over each row reversed within its own length (x_n .. x_1, then padding), the
//             result put back in place by the same permutation.
// Real positions therefore never see padding, exactly as with packing; padded outputs are zeroed.
EncoderOutput encode_bidirectional(const at::Tensor& embedded, const at::Tensor& lengths, std::int64_t layers,
                                   double dropout, bool training, const DirectionRunner& run) {
  TORCH_CHECK(embedded.dim() == 3 && lengths.dim() == 1 && lengths.size(0) == embedded.size(0),
              "encoder: embedded must be [batch, src_len, E] and lengths [batch]");
  const std::int64_t batch = embedded.size(0), src_len = embedded.size(1);
  const at::Tensor length = lengths.to(at::kLong).to(embedded.device());                  // [batch]
  const at::Tensor position = at::arange(src_len, length.options()).unsqueeze(0);          // [1, src_len]
  const at::Tensor real = position.lt(length.unsqueeze(1));                                // [batch, src_len]
  // reversed[b, t] = len_b - 1 - t at real positions, t at padding: an involution per row.
  const at::Tensor reversed = at::where(real, length.unsqueeze(1) - 1 - position, position.expand({batch, src_len}));
  const auto permute = [&](const at::Tensor& x) {
    return x.gather(1, reversed.unsqueeze(2).expand({batch, src_len, x.size(2)}));
  };

  at::Tensor x = embedded;
  bool masked = false;  // whether x has had the mask's product (zero at the padding)
  std::vector<at::Tensor> finals;  // h_n, layer-major, forward then backward, as PyTorch orders it
  for (std::int64_t layer = 0; layer < layers; ++layer) {
    if (layer > 0) x = at::dropout(x, dropout, training);
    const at::Tensor forward_states = run(layer, false, x);                 // [batch, src_len, H]
    const at::Tensor backward_walk = run(layer, true, permute(x));          // [batch, src_len, H], rows reversed
    const at::Tensor last = (length - 1).view({batch, 1, 1}).expand({batch, 1, forward_states.size(2)});
    finals.push_back(forward_states.gather(1, last).squeeze(1));            // state after x_n
    if (inference_kernels_apply(forward_states, backward_walk) &&
        forward_states.scalar_type() == backward_walk.scalar_type()) {
      finals.push_back(backward_walk.gather(1, last).squeeze(1));           // state after x_1: the walk's last
      masked = layer == layers - 1;  // as the expression: the mask's product after the top layer only
      x = join_directions(forward_states, backward_walk, length, /*zero_padding=*/masked);
    } else {  // autograd (training) and other devices: tensor operations
      const at::Tensor backward_states = permute(backward_walk);
      finals.push_back(backward_states.select(1, 0));                       // state after x_1
      x = at::cat({forward_states, backward_states}, /*dim=*/-1);
      masked = false;
    }
  }
  if (!masked) x = x * real.unsqueeze(2).to(x.scalar_type());
  return {x, at::stack(finals)};
}

EncoderOutput EncoderImpl::forward(const at::Tensor& embedded, const at::Tensor& lengths) {
  return encode_bidirectional(embedded, lengths, static_cast<std::int64_t>(layers_.size()), dropout_, is_training(),
                              [&](std::int64_t layer, bool reverse, const at::Tensor& input) {
                                const GruWeights& w = layers_[static_cast<std::size_t>(layer)][reverse ? 1 : 0];
                                return run_gru_direction(
                                    input, w, is_training(),
                                    [&](const at::Tensor& x) { return stable_linear(x, w.weight_ih, w.bias_ih); },
                                    [&](const at::Tensor& h) { return stable_linear(h, w.weight_hh, w.bias_hh); });
                              });
}

}  // namespace nmt
