// Seq2Seq: embeddings, encoder, decoder and output layer: the trainable model. forward() runs
// teacher forcing over whole target sequences (training, validation loss). Search steps the
// inference form that for_inference() builds from the parameters (nmt/model/inference/): the same
// function one token at a time (a test holds the two to 1e-5), with its arithmetic regrouped.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/embedding.h>

#include <c10/core/Device.h>

#include <memory>

#include "nmt/model/decoder.h"
#include "nmt/model/encoder.h"
#include "nmt/model/inference/inference_precision.h"
#include "nmt/model/model_config.h"

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
  const at::Tensor& weight() const { return weight_; }
  const at::Tensor& bias() const { return bias_; }

 private:
  at::Tensor weight_, bias_;
};
TORCH_MODULE(OutputLayer);

class InferenceModel;

class Seq2SeqImpl : public torch::nn::Module {
 public:
  /// Validates the config; parameters are drawn from U(-0.1, 0.1) with the current torch seed,
  /// and the padding rows of the embeddings are zero.
  explicit Seq2SeqImpl(const ModelConfig& config);

  /// source [batch, src_len], source_lengths [batch] (CPU), target_in [batch, tgt_len] (BOS y_1 ..).
  Seq2SeqOutput forward(const at::Tensor& source, const at::Tensor& source_lengths, const at::Tensor& target_in);

  /// The inference form on `device`: a copy of the parameters as they are now (later changes to this
  /// model do not reach it), with what search reads prepared once (nmt/model/inference/inference_model.h).
  /// `precision`: which of its products run in int8 (inference_precision.h); float32 by default.
  std::unique_ptr<InferenceModel> for_inference(const c10::Device& device, const InferencePrecision& precision = {}) const;

  const ModelConfig& config() const { return config_; }
  /// What depends on the optimizer steps taken: hard attention's Gumbel-softmax temperature
  /// (gumbel_temperature(step)). The trainer calls it before each step; a model never told is at step 0.
  void set_training_step(std::int64_t step);
  const torch::nn::Embedding& source_embedding() const { return source_embedding_; }
  const torch::nn::Embedding& target_embedding() const { return target_embedding_ ? target_embedding_ : source_embedding_; }
  const Encoder& encoder() const { return encoder_; }
  const Decoder& decoder() const { return decoder_; }
  const OutputLayer& output() const { return output_; }

 private:
  void build();  // registers the modules and initialises the parameters

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
