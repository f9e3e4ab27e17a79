#include "nmt/model/encoder.h"

#include <torch/nn/utils/rnn.h>

namespace nmt {

EncoderImpl::EncoderImpl(const ModelConfig& config) {
  rnn_ = register_module(
      "rnn", torch::nn::GRU(torch::nn::GRUOptions(config.embedding_size, config.encoder_hidden_size)
                                .num_layers(config.encoder_layers)
                                .bidirectional(true)
                                .batch_first(true)
                                .dropout(config.encoder_layers > 1 ? config.dropout : 0.0)));
}

EncoderOutput EncoderImpl::forward(const at::Tensor& embedded, const at::Tensor& lengths) {
  namespace rnn_utils = torch::nn::utils::rnn;
  TORCH_CHECK(embedded.dim() == 3 && lengths.dim() == 1 && lengths.size(0) == embedded.size(0),
              "encoder: embedded must be [batch, src_len, E] and lengths [batch]");
  const auto packed = rnn_utils::pack_padded_sequence(embedded, lengths.to(at::kCPU).to(at::kLong),
                                                      /*batch_first=*/true, /*enforce_sorted=*/false);
  auto [packed_memory, final_states] = rnn_->forward_with_packed_input(packed);
  auto [memory, unused_lengths] = rnn_utils::pad_packed_sequence(packed_memory, /*batch_first=*/true,
                                                                 /*padding_value=*/0.0,
                                                                 /*total_length=*/embedded.size(1));
  return {memory, final_states};
}

}  // namespace nmt
