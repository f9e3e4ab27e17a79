#include "nmt/model/decoder_walk.h"

#include <ATen/ATen.h>

#include "nmt/kernels/kernels.h"

namespace nmt {
namespace {

// Blocks laid side by side in the order given, from column 0.
std::vector<ColumnBlock> side_by_side(std::initializer_list<std::pair<DecoderInput, std::int64_t>> inputs) {
  std::vector<ColumnBlock> blocks;
  std::int64_t begin = 0;
  for (const auto& [input, size] : inputs) {
    blocks.push_back({input, begin, size});
    begin += size;
  }
  return blocks;
}

std::int64_t width(const std::vector<ColumnBlock>& blocks) {
  return blocks.empty() ? 0 : blocks.back().begin + blocks.back().size;
}

std::string describe_blocks(const std::string& weight, const std::vector<ColumnBlock>& blocks) {
  std::string text = weight + " = [";
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    if (i > 0) text += " | ";
    switch (blocks[i].input) {
      case DecoderInput::embedding: text += "ê_{t-1} (E)"; break;
      case DecoderInput::context: text += "c_t (2H)"; break;
      case DecoderInput::feed: text += "r_{t-1} (R)"; break;
      case DecoderInput::state: text += "s_t (D)"; break;
    }
  }
  return text + "]";
}

// The GRU stack: PyTorch's cell per layer, the first layer's input gates given, the others' and
// every layer's hidden gates from `terms`. Returns S_t [layers, batch, D].
at::Tensor gru_stack(const at::Tensor& first_input_gates, const at::Tensor& hidden, DecoderTerms& terms) {
  const auto layers = static_cast<std::size_t>(hidden.size(0));
  std::vector<at::Tensor> states;
  states.reserve(layers);
  at::Tensor input;
  for (std::size_t l = 0; l < layers; ++l) {
    const at::Tensor input_gates = l == 0 ? first_input_gates : terms.input_gates(l, input);
    const at::Tensor h = hidden[static_cast<std::int64_t>(l)];
    input = gru_cell(input_gates, terms.hidden_gates(l, h), h);
    states.push_back(input);
  }
  // One layer (the reference models): a view, not a copy of the state at every step.
  return layers == 1 ? states.front().unsqueeze(0) : at::stack(states);
}

}  // namespace

DecoderLayout DecoderLayout::of(const ModelConfig& config) {
  using In = DecoderInput;
  const std::int64_t E = config.embedding_size, H2 = 2 * config.encoder_hidden_size, D = config.decoder_hidden_size,
                     R = config.readout_size();
  DecoderLayout layout;
  if (config.decoder_style == DecoderStyle::bahdanau) {
    layout.gru_input = side_by_side({{In::embedding, E}, {In::context, H2}});
    layout.readout = side_by_side({{In::state, D}, {In::context, H2}, {In::embedding, E}});
  } else {
    layout.gru_input = side_by_side({{In::embedding, E}, {In::feed, R}});
    layout.readout = side_by_side({{In::context, H2}, {In::state, D}});
  }
  return layout;
}

const ColumnBlock* DecoderLayout::find(const std::vector<ColumnBlock>& blocks, DecoderInput input) {
  for (const ColumnBlock& block : blocks) {
    if (block.input == input) return &block;
  }
  return nullptr;
}

std::int64_t DecoderLayout::gru_input_size() const { return width(gru_input); }
std::int64_t DecoderLayout::readout_size() const { return width(readout); }

std::vector<std::string> DecoderLayout::describe() const {
  return {describe_blocks("W_ih,0", gru_input), describe_blocks("W_r", readout)};
}

at::Tensor columns(const at::Tensor& weight, const ColumnBlock& block) {
  return weight.slice(/*dim=*/1, block.begin, block.begin + block.size);
}

at::Tensor initial_decoder_state(const EncoderOutput& encoded, std::int64_t layers, std::int64_t hidden_size,
                                 const Product* bridge) {
  if (bridge == nullptr) return at::zeros({layers, encoded.memory.size(0), hidden_size}, encoded.memory.options());
  return tanh_rows((*bridge)(top_final_states(encoded))).unsqueeze(0).repeat({layers, 1, 1}).contiguous();
}

DecoderStepOutput decoder_step(DecoderStyle style, DecoderTerms& terms, const at::Tensor& hidden,
                               const at::Tensor& feed) {
  DecoderStepOutput out;
  if (style == DecoderStyle::bahdanau) {
    out.attended = terms.attend(hidden[-1]);  // from s_{t-1}
    out.hidden = gru_stack(terms.first_layer_gates(&out.attended, at::Tensor()), hidden, terms);
  } else {
    out.hidden = gru_stack(terms.first_layer_gates(nullptr, feed), hidden, terms);
    out.attended = terms.attend(out.hidden[-1]);  // from s_t
  }
  out.readout = terms.readout(out.hidden[-1], out.attended);
  return out;
}

}  // namespace nmt
