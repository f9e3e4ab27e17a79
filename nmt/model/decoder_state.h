// What search needs from a model: an initial state per batch, one decoding step, and a state that
// can be reordered along the batch (beam) dimension. Search includes only this header.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace nmt {

/// Everything that changes per batch travels here; the modules stay stateless.
struct DecoderState {
  at::Tensor memory;       // [sources, src_len, 2H] encoder states h_j, one row per source sentence
  at::Tensor keys;         // [sources, src_len, K]  attention keys precomputed from memory
  at::Tensor source_rows;  // [batch] int64 on the CPU: the memory/keys row of each decoder row;
                           //   undefined: row i uses row i (sources = batch), as encode() returns it
  at::Tensor mask;         // [batch, src_len]     bool, true at real source positions
  at::Tensor hidden;       // [layers, batch, D]   decoder GRU state
  at::Tensor feed;         // [batch, R]           Luong input feeding (previous attentional state);
                           //                      undefined for Bahdanau-style decoders
  at::Tensor projected;    // [sources, src_len, P] inference on the CPU only: W_c h_j for the weight
                           //   blocks W_c that a step applies to the context c_t, so that W_c c_t =
                           //   sum_j a_tj (W_c h_j) (docs/model.md, "Inference"); undefined otherwise.
                           //   Like keys, made by encode() from the parameters of that moment

  /// Rows `indices` [n] (int64, any order, repeats allowed): reorders beams or expands a batch.
  /// Memory, keys and projections are not copied (they are the same for all beams of a sentence
  /// and never change): only the row index moves, with the per-row state (mask, hidden, feed).
  DecoderState select(const at::Tensor& indices) const;
  std::int64_t batch_size() const { return hidden.size(1); }
};

struct StepOutput {
  at::Tensor log_probs;  // [batch, target_vocab] log p(y_t | y_<t, x)
  at::Tensor attention;  // [batch, src_len]
  DecoderState state;
};

/// The incremental face of a translation model.
class IncrementalDecoder {
 public:
  virtual ~IncrementalDecoder() = default;
  /// source [batch, src_len] int64 (x_1 .. x_n EOS, padded), source_lengths [batch] int64 on the CPU.
  virtual DecoderState encode(const at::Tensor& source, const at::Tensor& source_lengths) = 0;
  /// previous_tokens [batch] int64 (BOS at the first step).
  virtual StepOutput step(const DecoderState& state, const at::Tensor& previous_tokens) = 0;
  virtual std::int64_t target_vocab_size() const = 0;
};

}  // namespace nmt
