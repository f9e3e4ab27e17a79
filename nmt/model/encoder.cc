#include "nmt/model/encoder.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <string>

#include "nmt/model/gru_cell.h"
#include "nmt/model/kernels.h"
#include "nmt/model/stable_linear.h"

namespace nmt {

EncoderImpl::EncoderImpl(const ModelConfig& config)
    : layers_(config.encoder_layers), dropout_(config.encoder_layers > 1 ? config.dropout : 0.0) {
  // The module holds the parameters under PyTorch's names (rnn.weight_ih_l0, ..._reverse), so
  // checkpoints read in Python as an nn.GRU; forward() runs them itself (see below).
  rnn_ = register_module(
      "rnn", torch::nn::GRU(torch::nn::GRUOptions(config.embedding_size, config.encoder_hidden_size)
                                .num_layers(config.encoder_layers)
                                .bidirectional(true)
                                .batch_first(true)));
}

std::vector<at::Tensor> EncoderImpl::direction_parameters(std::int64_t layer, bool reverse) const {
  const std::string suffix = "_l" + std::to_string(layer) + (reverse ? "_reverse" : "");
  const auto named = rnn_->named_parameters(/*recurse=*/false);
  return {named["weight_ih" + suffix], named["weight_hh" + suffix], named["bias_ih" + suffix],
          named["bias_hh" + suffix]};
}

namespace {

// One direction of one layer from h_0 = 0 over [batch, src_len, in] -> [batch, src_len, H]. Training
// runs at::gru; inference runs the same cell with stable_linear's products, whose rows do not
// depend on the batch (at::gru's BLAS products do: stable_linear.h).
at::Tensor run_direction(const at::Tensor& input, const std::vector<at::Tensor>& parameters, bool training) {
  const at::Tensor &weight_ih = parameters[0], &weight_hh = parameters[1], &bias_ih = parameters[2],
                   &bias_hh = parameters[3];
  const std::int64_t batch = input.size(0), steps = input.size(1), hidden = weight_hh.size(1);
  if (!inference_kernels_apply(input, weight_ih)) {
    const at::Tensor h0 = at::zeros({1, batch, hidden}, input.options());
    return std::get<0>(at::gru(input, h0, parameters, /*has_biases=*/true, /*num_layers=*/1, /*dropout=*/0.0,
                               training, /*bidirectional=*/false, /*batch_first=*/true));
  }
  const at::Tensor input_gates = stable_linear(input, weight_ih, bias_ih);  // [batch, src_len, 3H], all steps at once
  at::Tensor h = at::zeros({batch, hidden}, input.options());
  std::vector<at::Tensor> states;
  states.reserve(static_cast<std::size_t>(steps));
  for (std::int64_t t = 0; t < steps; ++t) {
    h = gru_cell(input_gates.select(1, t), stable_linear(h, weight_hh, bias_hh), h);
    states.push_back(h);
  }
  return at::stack(states, /*dim=*/1);
}

}  // namespace

// Why not pack_padded_sequence: LibTorch's packed GRU backward allocates and zero-fills a
// full-size gradient at every time step, which made the encoder half the cost of a training step
// (docs/benchmarks.md). Here both directions run dense over the padded batch:
//   forward:  over positions 1 .. S as they are; states at padding come after every real one;
//   backward: over each row reversed within its own length (x_n .. x_1, then padding), the
//             result put back in place by the same permutation.
// Real positions therefore never see padding, exactly as with packing; padded outputs are zeroed.
EncoderOutput EncoderImpl::forward(const at::Tensor& embedded, const at::Tensor& lengths) {
  TORCH_CHECK(embedded.dim() == 3 && lengths.dim() == 1 && lengths.size(0) == embedded.size(0),
              "encoder: embedded must be [batch, src_len, E] and lengths [batch]");
  const std::int64_t hidden = rnn_->options.hidden_size();
  const std::int64_t batch = embedded.size(0), src_len = embedded.size(1);
  const at::Tensor length = lengths.to(at::kLong).to(embedded.device());                  // [batch]
  const at::Tensor position = at::arange(src_len, length.options()).unsqueeze(0);          // [1, src_len]
  const at::Tensor real = position.lt(length.unsqueeze(1));                                // [batch, src_len]
  // reversed[b, t] = len_b - 1 - t at real positions, t at padding: an involution per row.
  const at::Tensor reversed = at::where(real, length.unsqueeze(1) - 1 - position, position.expand({batch, src_len}));
  const auto permute = [&](const at::Tensor& x) {
    return x.gather(1, reversed.unsqueeze(2).expand({batch, src_len, x.size(2)}));
  };
  const at::Tensor last = (length - 1).view({batch, 1, 1}).expand({batch, 1, hidden});

  at::Tensor x = embedded;
  std::vector<at::Tensor> finals;  // h_n, layer-major, forward then backward, as PyTorch orders it
  for (std::int64_t layer = 0; layer < layers_; ++layer) {
    if (layer > 0) x = at::dropout(x, dropout_, is_training());
    const auto run = [&](const at::Tensor& input, bool reverse) {
      return run_direction(input, direction_parameters(layer, reverse), is_training());
    };
    const at::Tensor forward_states = run(x, false);                  // [batch, src_len, H]
    const at::Tensor backward_states = permute(run(permute(x), true));
    finals.push_back(forward_states.gather(1, last).squeeze(1));      // state after x_n
    finals.push_back(backward_states.select(1, 0));                   // state after x_1
    x = at::cat({forward_states, backward_states}, /*dim=*/-1);
  }
  return {x * real.unsqueeze(2).to(x.scalar_type()), at::stack(finals)};
}

}  // namespace nmt
