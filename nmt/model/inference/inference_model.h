// The model in inference form: what search steps (IncrementalDecoder), built once from a trainable
// Seq2Seq by Seq2SeqImpl::for_inference(device). It owns copies of the parameters as plain
// members, with what search reads prepared once: packed weights (nmt/kernels/kernels.h), the per-word
// table and, per batch, the projections of the memory (inference_decoder.h). Nothing in it changes
// after construction, so translator workers step one model from several threads at once.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <array>
#include <memory>
#include <vector>

#include "nmt/model/attention_hardening.h"
#include "nmt/model/incremental_decoder.h"
#include "nmt/model/inference/inference_decoder.h"
#include "nmt/model/inference/inference_precision.h"
#include "nmt/model/model_config.h"
#include "nmt/model/seq2seq.h"
#include "nmt/kernels/kernels.h"

namespace nmt {

/// The bidirectional encoder with its products packed (encoder.h gives the walk).
class InferenceEncoder {
 public:
  /// source_embedding [V_src, E]: the rows the encoder reads. `precision`: of the recurrent products
  /// and deeper layers' input products (the first layer's input gates are a float32 table).
  InferenceEncoder(const EncoderImpl& encoder, const at::Tensor& source_embedding, const c10::Device& device,
                   Precision precision = Precision::float32);
  /// source [batch, src_len] int64 piece ids, lengths [batch] int64 -> memory and final states as
  /// EncoderImpl::forward of their embeddings.
  EncoderOutput operator()(const at::Tensor& source, const at::Tensor& lengths) const;

 private:
  struct Direction {
    PackedLinear input;   // W_ih x + b_ih
    PackedLinear hidden;  // W_hh h + b_hh
    GruWeights cudnn;     // on CUDA: copies of the four in one cuDNN buffer, what at::gru reads; else empty
  };
  std::vector<std::array<Direction, 2>> layers_;  // [layer][0 forward, 1 backward]
  at::Tensor embedding_;                          // [V_src, E] snapshot, read where there is no table
  // Where the inference kernels apply (the CPU): the first layer's input gates of every source
  // piece, [V_src, 3H] per direction (W_ih x̂_v + b_ih), so that encoding gathers rows instead of
  // running that product per position. The same bits: the product is row-invariant. Else empty.
  std::array<at::Tensor, 2> first_gates_;
};

class InferenceModel final : public IncrementalDecoder, public AttentionHardening {
 public:
  /// `precision`: which products run in int8 (inference_precision.h); float32 everywhere by default.
  InferenceModel(const Seq2SeqImpl& model, const c10::Device& device, const InferencePrecision& precision = {});

  DecoderStatePtr encode(const at::Tensor& source, const at::Tensor& source_lengths) const override;
  StepOutput step(const DecoderState& state, const at::Tensor& previous_tokens) const override;
  /// Each row's best piece straight from the logits on the CPU (best_of_log_softmax: the bits of
  /// step() and a scan, without the [batch, V] log-probabilities written and read again).
  BestStep best_step(const DecoderState& state, const at::Tensor& previous_tokens,
                     const at::Tensor& offset) const override;
  /// Each group's best candidates straight from the logits on the CPU (log_softmax_normalisers and
  /// top_of_rows: the bits of ranking step()'s log-probabilities, without writing them).
  RankedStep ranked_step(const DecoderState& state, const at::Tensor& previous_tokens, const at::Tensor& offset,
                         const std::vector<std::int64_t>& group_sizes, std::int64_t count) const override;
  /// The rows of W_out and b_out for the pieces, packed once (the same chains as the whole layer's).
  std::shared_ptr<const OutputSubset> output_subset(const at::Tensor& pieces) const override;
  /// W_out r_t + b_out over the subset's pieces, without the log-softmax (from the packed rows of
  /// a subset this model made; another model's subset selects the columns of the whole layer).
  StepLogits step_logits(const DecoderState& state, const at::Tensor& previous_tokens,
                         const OutputSubset& subset) const override;
  std::int64_t target_vocab_size() const override { return config_.target_vocab_size; }
  bool has_attention() const override { return config_.has_attention(); }
  /// This model with hard attention, sharing every packed product (needs attention).
  std::shared_ptr<const IncrementalDecoder> with_hard_attention() const override;

  const ModelConfig& config() const { return config_; }
  const c10::Device& device() const { return device_; }
  const InferencePrecision& precision() const { return precision_; }

 private:
  /// The decoder's step up to the readout r_t, which every form of the output layer reads.
  InferenceStep decode(const DecoderState& state, const at::Tensor& previous_tokens) const;

  ModelConfig config_;
  c10::Device device_;
  InferencePrecision precision_;
  InferenceEncoder encoder_;
  std::shared_ptr<const InferenceDecoder> decoder_;  // a hardened copy holds its own (with_hard_attention)
  PackedLinear output_;  // W_out [V_tgt, R], b_out
};

}  // namespace nmt
