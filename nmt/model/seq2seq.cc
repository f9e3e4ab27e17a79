#include "nmt/model/seq2seq.h"

#include <ATen/ATen.h>
#include <torch/nn/init.h>

#include "nmt/core/error.h"
#include "nmt/core/torch_error.h"
#include "nmt/data/tokenizer.h"
#include "nmt/model/attention_normaliser.h"
#include "nmt/model/inference/inference_model.h"
#include "nmt/kernels/kernels.h"

namespace nmt {

OutputLayerImpl::OutputLayerImpl(std::int64_t readout_size, std::int64_t vocab_size, const at::Tensor& tied_weight) {
  weight_ = tied_weight.defined() ? tied_weight : register_parameter("weight", at::empty({vocab_size, readout_size}));
  bias_ = register_parameter("bias", at::zeros({vocab_size}));
}

at::Tensor OutputLayerImpl::forward(const at::Tensor& readout) { return stable_linear(readout, weight_, bias_); }

Seq2SeqImpl::Seq2SeqImpl(const ModelConfig& config) : config_(config) {
  config_.validate();
  try {
    build();
  } catch (const c10::Error& e) {  // e.g. "DefaultCPUAllocator: not enough memory: you tried to allocate N bytes"
    const std::string what = torch_error_reason(e);
    throw ConfigError("cannot build the model (embedding-size " + std::to_string(config_.embedding_size) +
                      ", encoder-hidden-size " + std::to_string(config_.encoder_hidden_size) + ", decoder-hidden-size " +
                      std::to_string(config_.decoder_hidden_size) + ", vocabularies " +
                      std::to_string(config_.source_vocab_size) + " and " + std::to_string(config_.target_vocab_size) +
                      "): " + what);
  } catch (const std::bad_alloc&) {
    throw ConfigError("cannot build the model: out of memory for encoder-hidden-size " +
                      std::to_string(config_.encoder_hidden_size) + ", decoder-hidden-size " +
                      std::to_string(config_.decoder_hidden_size));
  }
}

void Seq2SeqImpl::build() {
  const auto embedding = [&](std::int64_t vocab) {
    return torch::nn::Embedding(
        torch::nn::EmbeddingOptions(vocab, config_.embedding_size).padding_idx(SpecialIds::kPad));
  };
  source_embedding_ = register_module("source_embedding", embedding(config_.source_vocab_size));
  if (!config_.share_embeddings) target_embedding_ = register_module("target_embedding", embedding(config_.target_vocab_size));
  dropout_ = register_module("dropout", torch::nn::Dropout(config_.dropout));
  encoder_ = register_module("encoder", Encoder(config_));
  decoder_ = register_module("decoder", Decoder(config_));
  output_ = register_module(
      "output", OutputLayer(config_.readout_size(), config_.target_vocab_size,
                            config_.tie_output_embedding ? target_embedding()->weight : at::Tensor()));

  torch::NoGradGuard no_grad;
  for (auto& parameter : parameters()) torch::nn::init::uniform_(parameter, -0.1, 0.1);
  source_embedding_->weight[SpecialIds::kPad].zero_();
  target_embedding()->weight[SpecialIds::kPad].zero_();
  // local-p-offset starts as local-m: v_p = 0 makes every offset 0 (after the uniform draw, so every
  // other parameter is what it would be). v_p still learns: dp/dv_p = W tanh(W_p q).
  if (config_.attention_window == AttentionWindow::local_p_offset) {
    named_parameters()["decoder.attention.position_energy.weight"].zero_();
  }
}

void Seq2SeqImpl::set_training_step(std::int64_t step) {
  if (config_.attention_normaliser == AttentionNormaliser::hard) decoder_->set_attention_temperature(gumbel_temperature(step));
}

std::unique_ptr<InferenceModel> Seq2SeqImpl::for_inference(const c10::Device& device,
                                                          const InferencePrecision& precision) const {
  return std::make_unique<InferenceModel>(*this, device, precision);
}

Seq2SeqOutput Seq2SeqImpl::forward(const at::Tensor& source, const at::Tensor& source_lengths,
                                   const at::Tensor& target_in) {
  TORCH_CHECK(target_in.dim() == 2 && target_in.size(0) == source.size(0),
              "forward: target_in must be [batch, tgt_len] with the source's batch size");
  TORCH_CHECK(source.dim() == 2, "forward: source must be [batch, src_len]");
  const at::Tensor lengths = source_lengths.to(at::kCPU).to(at::kLong);
  const at::Tensor mask = source_mask(source.size(1), lengths).to(source.device());
  const EncoderOutput encoded = encoder_(dropout_(source_embedding_(source)), lengths);
  torch::nn::Embedding target_embedding = this->target_embedding();
  const at::Tensor embedded = dropout_(target_embedding(target_in));  // [batch, tgt_len, E]
  const DecoderSequence decoded = decoder_->forward(embedded, encoded, mask);
  // One large projection for all steps: the output layer dominates the cost at real vocabulary sizes.
  return {output_(dropout_(decoded.readouts)), decoded.attention};
}

}  // namespace nmt
