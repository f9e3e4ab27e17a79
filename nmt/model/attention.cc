#include "nmt/model/attention.h"

#include <torch/nn/functional/activation.h>

#include <limits>

namespace nmt {
namespace {

torch::nn::Linear linear(std::int64_t in, std::int64_t out) {
  return torch::nn::Linear(torch::nn::LinearOptions(in, out).bias(false));
}

}  // namespace

AttentionOutput AttentionImpl::forward(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& memory,
                                       const at::Tensor& mask) {
  TORCH_CHECK(query.dim() == 2 && memory.dim() == 3 && mask.dim() == 2, "attention: bad ranks");
  const at::Tensor scores = score(query, keys);  // [batch, src_len]
  // -inf before the softmax makes padded weights exactly zero (exp(-inf) = 0).
  const at::Tensor weights =
      scores.masked_fill(mask.logical_not(), -std::numeric_limits<double>::infinity()).softmax(/*dim=*/-1);
  const at::Tensor context = weights.unsqueeze(1).bmm(memory).squeeze(1);  // [batch, 2H]
  return {context, weights};
}

BahdanauAttention::BahdanauAttention(std::int64_t query_size, std::int64_t memory_size, std::int64_t attention_size) {
  query_layer_ = register_module("query_layer", linear(query_size, attention_size));
  key_layer_ = register_module("key_layer", linear(memory_size, attention_size));
  energy_layer_ = register_module("energy_layer", linear(attention_size, 1));
}

at::Tensor BahdanauAttention::precompute_keys(const at::Tensor& memory) { return key_layer_(memory); }

at::Tensor BahdanauAttention::score(const at::Tensor& query, const at::Tensor& keys) {
  // v^T tanh(W q + U h_j): [batch, 1, A] + [batch, src_len, A] -> [batch, src_len]
  return energy_layer_(at::tanh(query_layer_(query).unsqueeze(1) + keys)).squeeze(-1);
}

DotAttention::DotAttention(std::int64_t query_size, std::int64_t memory_size) {
  if (query_size != memory_size) key_layer_ = register_module("key_layer", linear(memory_size, query_size));
}

at::Tensor DotAttention::precompute_keys(const at::Tensor& memory) {
  return key_layer_ ? key_layer_(memory) : memory;
}

at::Tensor DotAttention::score(const at::Tensor& query, const at::Tensor& keys) {
  return keys.bmm(query.unsqueeze(2)).squeeze(2);  // [batch, src_len, D] x [batch, D, 1]
}

GeneralAttention::GeneralAttention(std::int64_t query_size, std::int64_t memory_size) {
  key_layer_ = register_module("key_layer", linear(memory_size, query_size));
}

at::Tensor GeneralAttention::precompute_keys(const at::Tensor& memory) { return key_layer_(memory); }

at::Tensor GeneralAttention::score(const at::Tensor& query, const at::Tensor& keys) {
  return keys.bmm(query.unsqueeze(2)).squeeze(2);  // q^T (W h_j)
}

ConcatAttention::ConcatAttention(std::int64_t query_size, std::int64_t memory_size, std::int64_t attention_size)
    : query_size_(query_size) {
  concat_layer_ = register_module("concat_layer", linear(query_size + memory_size, attention_size));
  energy_layer_ = register_module("energy_layer", linear(attention_size, 1));
}

at::Tensor ConcatAttention::precompute_keys(const at::Tensor& memory) {
  const at::Tensor memory_block = concat_layer_->weight.slice(/*dim=*/1, query_size_);  // W[:, D:]
  return at::matmul(memory, memory_block.t());
}

at::Tensor ConcatAttention::score(const at::Tensor& query, const at::Tensor& keys) {
  const at::Tensor query_block = concat_layer_->weight.slice(/*dim=*/1, 0, query_size_);  // W[:, :D]
  return energy_layer_(at::tanh(at::matmul(query, query_block.t()).unsqueeze(1) + keys)).squeeze(-1);
}

std::shared_ptr<AttentionImpl> make_attention(const ModelConfig& config) {
  const std::int64_t query = config.decoder_hidden_size, memory = 2 * config.encoder_hidden_size;
  switch (config.attention) {
    case AttentionType::bahdanau: return std::make_shared<BahdanauAttention>(query, memory, config.attention_size);
    case AttentionType::dot: return std::make_shared<DotAttention>(query, memory);
    case AttentionType::general: return std::make_shared<GeneralAttention>(query, memory);
    case AttentionType::concat: return std::make_shared<ConcatAttention>(query, memory, config.attention_size);
  }
  throw std::logic_error("unknown attention type");
}

}  // namespace nmt
