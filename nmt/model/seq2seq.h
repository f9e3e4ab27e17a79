// Seq2Seq: embeddings, encoder, decoder and output layer, with two faces:
//   forward()        teacher forcing over whole target sequences (training, scoring);
//   encode() + step() one token at a time (search), through the IncrementalDecoder interface.
// Both run the same decoder step, so stepping reproduces forward() exactly (a test holds it to that).
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/embedding.h>

#include <memory>
#include <mutex>
#include <vector>

#include "nmt/model/decoder.h"
#include "nmt/model/decoder_state.h"
#include "nmt/model/encoder.h"
#include "nmt/model/model_config.h"
#include "nmt/model/tensor_version.h"

namespace nmt {

struct Seq2SeqOutput {
  at::Tensor logits;     // [batch, tgt_len, target_vocab] (unnormalised)
  at::Tensor attention;  // [batch, tgt_len, src_len]
};

/// logits = W_out r_t + b_out. W_out is `output.weight` [V, R], or the target embedding matrix
/// when tied (then R = E and `output.weight` is absent).
class OutputLayerImpl : public torch::nn::Module {
 public:
  OutputLayerImpl(std::int64_t readout_size, std::int64_t vocab_size, const at::Tensor& tied_weight);
  at::Tensor forward(const at::Tensor& readout);

 private:
  at::Tensor weight_, bias_;
};
TORCH_MODULE(OutputLayer);

class Seq2SeqImpl : public torch::nn::Module, public IncrementalDecoder {
 public:
  /// Validates the config; parameters are drawn from U(-0.1, 0.1) with the current torch seed,
  /// and the padding rows of the embeddings are zero.
  explicit Seq2SeqImpl(const ModelConfig& config);

  /// source [batch, src_len], source_lengths [batch] (CPU), target_in [batch, tgt_len] (BOS y_1 ..).
  Seq2SeqOutput forward(const at::Tensor& source, const at::Tensor& source_lengths, const at::Tensor& target_in);

  DecoderState encode(const at::Tensor& source, const at::Tensor& source_lengths) override;
  StepOutput step(const DecoderState& state, const at::Tensor& previous_tokens) override;
  std::int64_t target_vocab_size() const override { return config_.target_vocab_size; }

  const ModelConfig& config() const { return config_; }

 private:
  void build();  // registers the modules and initialises the parameters
  /// for_steps: the state step() reads (with projections in inference), else forward()'s.
  DecoderState encode(const at::Tensor& source, const at::Tensor& source_lengths, bool for_steps);
  torch::nn::Embedding target_embedding() const { return target_embedding_ ? target_embedding_ : source_embedding_; }
  /// [V_tgt, T]: the decoder's embedding_terms of every target word, computed by the same
  /// row-invariant products as a step would compute them (stable_linear.h), so that a step looks
  /// its rows up, bit for bit the same, instead of [rows, E] x [E, T] products. Inference on the
  /// CPU only (undefined otherwise); built on first use, rebuilt when a parameter it reads changes.
  at::Tensor embedding_term_table();

  struct TermTable {
    std::vector<TensorVersionKey> keys;  // target embedding, then Decoder::embedding_term_parameters()
    at::Tensor table;
  };
  std::mutex term_table_mutex_;  // search workers step in parallel
  std::shared_ptr<const TermTable> term_table_;

  ModelConfig config_;
  torch::nn::Embedding source_embedding_{nullptr};  // source_embedding.weight [V_src, E]
  torch::nn::Embedding target_embedding_{nullptr};  // target_embedding.weight [V_tgt, E]; null when shared
  torch::nn::Dropout dropout_{nullptr};
  Encoder encoder_{nullptr};
  Decoder decoder_{nullptr};
  OutputLayer output_{nullptr};
};
TORCH_MODULE(Seq2Seq);

}  // namespace nmt
