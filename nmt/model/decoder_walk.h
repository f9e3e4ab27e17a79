// The decoder's equations, written once (docs/model.md, "Decoder"): which columns of its weights
// read which input, per style (DecoderLayout); the bridge; and one step of each style with the
// products injected (DecoderTerms), as encoder.h's encode_bidirectional does for the encoder.
//
//   Bahdanau style:  a_t, c_t = attend(s_{t-1});  S_t = GRU([ê_{t-1}; c_t], S_{t-1});
//                    r_t = tanh(W_r [s_t; c_t; ê_{t-1}] + b_r)
//   Luong style:     S_t = GRU([ê_{t-1}; r_{t-1}], S_{t-1});  a_t, c_t = attend(s_t);
//                    r_t = tanh(W_r [c_t; s_t] + b_r)
//
// Two forms compute these: the trainable decoder (decoder.h: teacher forcing, autograd, what
// does not depend on the recurrence hoisted out of the time loop) and the inference decoder
// (inference/inference_decoder.h: packed products, a per-word table, the context's projections).
// Each implements DecoderTerms in its own arithmetic; the order of the equations is the walk's.
// The layout is what every form (and the runnable TorchScript methods to come) is checked against.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "nmt/model/encoder.h"
#include "nmt/model/gru_cell.h"
#include "nmt/model/model_config.h"

namespace nmt {

/// What a block of a weight's columns reads.
enum class DecoderInput {
  embedding,  // ê_{t-1} [E]: the previous target word's embedding
  context,    // c_t [2H]: the attention's context (the fixed c without attention)
  feed,       // r_{t-1} [R]: the previous readout (Luong style's input feeding)
  state,      // s_t [D]: the top GRU layer's new state
};

struct ColumnBlock {
  DecoderInput input;
  std::int64_t begin = 0;  // first column
  std::int64_t size = 0;
};

/// The columns of the decoder's two weights that read several inputs, per style:
///   Bahdanau:  W_ih,0 (decoder.rnn.weight_ih_l0) = [ê_{t-1} (E) | c_t (2H)]
///              W_r (decoder.readout.weight)      = [s_t (D) | c_t (2H) | ê_{t-1} (E)]
///   Luong:     W_ih,0 = [ê_{t-1} (E) | r_{t-1} (R)]
///              W_r    = [c_t (2H) | s_t (D)]
struct DecoderLayout {
  std::vector<ColumnBlock> gru_input;  // the first GRU layer's input weight W_ih,0
  std::vector<ColumnBlock> readout;    // W_r

  static DecoderLayout of(const ModelConfig& config);

  /// The block of `input` in `blocks`, or null when they do not read it.
  static const ColumnBlock* find(const std::vector<ColumnBlock>& blocks, DecoderInput input);
  std::int64_t gru_input_size() const;  // columns of W_ih,0
  std::int64_t readout_size() const;    // columns of W_r
  /// The readout is read back by the next step (Luong style): it must be made at every step.
  bool input_feeding() const { return find(gru_input, DecoderInput::feed) != nullptr; }

  /// The layout in docs/model.md's words: "W_ih,0 = [ê_{t-1} (E) | c_t (2H)]" and
  /// "W_r = [s_t (D) | c_t (2H) | ê_{t-1} (E)]" (a test holds the docs to it).
  std::vector<std::string> describe() const;
};

/// W[:, block]: the columns of `weight` [rows, columns] that read the block's input.
at::Tensor columns(const at::Tensor& weight, const ColumnBlock& block);

/// S_0 [layers, batch, D]: tanh(W_b [fwd_n; bwd_1] + b_b) of the encoder's top layer for every
/// layer, through `bridge` (W_b x + b_b); zeros (the memory's dtype and device) without one.
at::Tensor initial_decoder_state(const EncoderOutput& encoded, std::int64_t layers, std::int64_t hidden_size,
                                 const Product* bridge);

/// What the attention gives the rest of a step: a_t [batch, src_len] (undefined without
/// attention) and the context as the form's products read it: c_t [batch, 2H] in the trainable
/// form, its projections p_t = Σ_j a_tj W_c h_j in the inference form.
struct AttendedContext {
  at::Tensor weights;
  at::Tensor context;
};

/// One form's products for one step; decoder_step calls them in its style's order.
class DecoderTerms {
 public:
  virtual ~DecoderTerms() = default;
  /// a_t and the context from the query [batch, D] (s_{t-1} in Bahdanau style, s_t in Luong style).
  virtual AttendedContext attend(const at::Tensor& query) = 0;
  /// The first GRU layer's input gates W_ih,0 x + b_ih,0 [batch, 3D] for x = [ê_{t-1}; c_t]
  /// (Bahdanau: `attended` is set) or x = [ê_{t-1}; r_{t-1}] (Luong: `feed` is r_{t-1}).
  virtual at::Tensor first_layer_gates(const AttendedContext* attended, const at::Tensor& feed) = 0;
  /// W_ih,l x + b_ih,l for a layer l >= 1 (x: the layer below's new state).
  virtual at::Tensor input_gates(std::size_t layer, const at::Tensor& x) = 0;
  /// W_hh,l h + b_hh,l.
  virtual at::Tensor hidden_gates(std::size_t layer, const at::Tensor& h) = 0;
  /// r_t [batch, R] from s_t and the context; undefined when the form makes its readouts later
  /// (only where no step reads them back: Bahdanau style).
  virtual at::Tensor readout(const at::Tensor& top, const AttendedContext& attended) = 0;
};

struct DecoderStepOutput {
  at::Tensor hidden;         // S_t [layers, batch, D]
  at::Tensor readout;        // r_t [batch, R], or undefined (DecoderTerms::readout)
  AttendedContext attended;  // a_t and the context of this step
};

/// One step of `style` from S_{t-1} = hidden [layers, batch, D] and, in Luong style, r_{t-1} =
/// feed [batch, R]. The GRU stack runs PyTorch's cell per layer (gru_cell.h) on the injected products.
DecoderStepOutput decoder_step(DecoderStyle style, DecoderTerms& terms, const at::Tensor& hidden,
                               const at::Tensor& feed);

}  // namespace nmt
