#include "nmt/model/attention.h"

#include <torch/nn/functional/activation.h>

#include "nmt/kernels/kernels.h"
#include "nmt/model/attention_normaliser.h"
#include "nmt/model/attention_window.h"

namespace nmt {
namespace {

torch::nn::Linear linear(std::int64_t in, std::int64_t out) {
  return torch::nn::Linear(torch::nn::LinearOptions(in, out).bias(false));
}

}  // namespace

AttentionOutput AttentionImpl::forward(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& memory,
                                       const at::Tensor& mask, std::int64_t step) {
  TORCH_CHECK(memory.dim() == 3, "attention: memory must be [batch, src_len, 2H]");
  TORCH_CHECK(query.dim() == 2 && mask.dim() == 2, "attention: query must be [batch, D] and mask [batch, src_len]");
  // -inf at padding makes padded weights exactly zero (exp(-inf) = 0; below every threshold tau).
  const at::Tensor scores = score(query, keys, mask);
  // Hard attention trains through Gumbel noise; evaluation, like inference, takes the argmax.
  const bool gumbel = normaliser_ == AttentionNormaliser::hard && is_training();
  const auto normalise = [&](const at::Tensor& s) {
    return gumbel ? gumbel_straight_through(s, temperature_) : normalise_attention(s, normaliser_);
  };
  at::Tensor weights;  // [batch, src_len]
  switch (window_) {
    case AttentionWindow::global: weights = normalise(scores); break;
    case AttentionWindow::local_m:
      weights = local_attention_weights(scores, monotonic_centres(step, real_lengths(mask), scores), window_size_,
                                        normalise);
      break;
    case AttentionWindow::local_p:
    case AttentionWindow::local_p_offset:
      weights = local_attention_weights(scores, learnt_centres(query, mask, step), window_size_, normalise);
      break;
  }
  return {weighted_context(weights, memory, at::Tensor()), weights};
}

void AttentionImpl::set_window(AttentionWindow window, std::int64_t size, std::int64_t query_size,
                               std::int64_t attention_size) {
  window_ = window;
  window_size_ = size;
  if (window == AttentionWindow::local_p || window == AttentionWindow::local_p_offset) {
    position_layer_ = register_module("position_layer", linear(query_size, attention_size));
    position_energy_ = register_module("position_energy", linear(attention_size, 1));
  }
}

AttentionWindowParts AttentionImpl::window_parts() const {
  AttentionWindowParts parts{window_, window_size_, {}, {}};
  if (position_layer_) {
    parts.position_weight = position_layer_->weight;
    parts.position_v = position_energy_->weight;
  }
  return parts;
}

at::Tensor AttentionImpl::learnt_centres(const at::Tensor& query, const at::Tensor& mask, std::int64_t step) {
  TORCH_CHECK(position_layer_, "attention: only local-p and local-p-offset learn their centres");
  // v_p^T tanh(W_p q): [batch, D] -> [batch, A] -> [batch, 1]
  const at::Tensor energy = stable_linear(tanh_rows(stable_linear(query, position_layer_->weight)),
                                          position_energy_->weight);
  return nmt::learnt_centres(window_, step, real_lengths(mask), energy, window_size_);
}

BahdanauAttention::BahdanauAttention(std::int64_t query_size, std::int64_t memory_size, std::int64_t attention_size) {
  query_layer_ = register_module("query_layer", linear(query_size, attention_size));
  key_layer_ = register_module("key_layer", linear(memory_size, attention_size));
  energy_layer_ = register_module("energy_layer", linear(attention_size, 1));
}

at::Tensor BahdanauAttention::precompute_keys(const at::Tensor& memory) { return stable_linear(memory, key_layer_->weight); }

at::Tensor BahdanauAttention::score(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& mask) {
  // v^T tanh(W q + U h_j): [batch, A] and [batch, src_len, A] -> [batch, src_len]
  return additive_energy(stable_linear(query, query_layer_->weight), keys, energy_layer_->weight.squeeze(0),
                         at::Tensor(), mask);
}

AttentionParts BahdanauAttention::parts() const {
  return {key_layer_->weight, query_layer_->weight, energy_layer_->weight.squeeze(0)};
}

DotAttention::DotAttention(std::int64_t query_size, std::int64_t memory_size) {
  if (query_size != memory_size) key_layer_ = register_module("key_layer", linear(memory_size, query_size));
}

at::Tensor DotAttention::precompute_keys(const at::Tensor& memory) {
  return key_layer_ ? stable_linear(memory, key_layer_->weight) : memory;
}

at::Tensor DotAttention::score(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& mask) {
  return dot_scores(query, keys, at::Tensor(), mask);  // q^T h_j (or q^T P h_j)
}

AttentionParts DotAttention::parts() const { return {key_layer_ ? key_layer_->weight : at::Tensor(), {}, {}}; }

GeneralAttention::GeneralAttention(std::int64_t query_size, std::int64_t memory_size) {
  key_layer_ = register_module("key_layer", linear(memory_size, query_size));
}

at::Tensor GeneralAttention::precompute_keys(const at::Tensor& memory) { return stable_linear(memory, key_layer_->weight); }

at::Tensor GeneralAttention::score(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& mask) {
  return dot_scores(query, keys, at::Tensor(), mask);  // q^T (W h_j)
}

AttentionParts GeneralAttention::parts() const { return {key_layer_->weight, {}, {}}; }

ConcatAttention::ConcatAttention(std::int64_t query_size, std::int64_t memory_size, std::int64_t attention_size)
    : query_size_(query_size) {
  concat_layer_ = register_module("concat_layer", linear(query_size + memory_size, attention_size));
  energy_layer_ = register_module("energy_layer", linear(attention_size, 1));
}

at::Tensor ConcatAttention::precompute_keys(const at::Tensor& memory) {
  const at::Tensor memory_block = concat_layer_->weight.slice(/*dim=*/1, query_size_);  // W[:, D:]
  return stable_linear(memory, memory_block);
}

at::Tensor ConcatAttention::score(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& mask) {
  const at::Tensor query_block = concat_layer_->weight.slice(/*dim=*/1, 0, query_size_);  // W[:, :D]
  return additive_energy(stable_linear(query, query_block), keys, energy_layer_->weight.squeeze(0), at::Tensor(),
                         mask);  // v^T tanh(W[:, :D] q + W[:, D:] h_j)
}

AttentionParts ConcatAttention::parts() const {
  return {concat_layer_->weight.slice(/*dim=*/1, query_size_), concat_layer_->weight.slice(/*dim=*/1, 0, query_size_),
          energy_layer_->weight.squeeze(0)};
}

namespace {

std::shared_ptr<AttentionImpl> make_score(const ModelConfig& config) {
  const std::int64_t query = config.decoder_hidden_size, memory = 2 * config.encoder_hidden_size;
  switch (config.attention) {
    case AttentionType::bahdanau: return std::make_shared<BahdanauAttention>(query, memory, config.attention_size);
    case AttentionType::dot: return std::make_shared<DotAttention>(query, memory);
    case AttentionType::general: return std::make_shared<GeneralAttention>(query, memory);
    case AttentionType::concat: return std::make_shared<ConcatAttention>(query, memory, config.attention_size);
    case AttentionType::none: break;  // the decoder reads a fixed context instead
  }
  throw std::logic_error("make_attention: no attention module for attention = " + name_of(config.attention));
}

}  // namespace

std::shared_ptr<AttentionImpl> make_attention(const ModelConfig& config) {
  std::shared_ptr<AttentionImpl> attention = make_score(config);
  attention->set_normaliser(config.attention_normaliser);
  attention->set_window(config.attention_window, config.attention_window_size, config.decoder_hidden_size,
                        config.attention_size);
  return attention;
}

}  // namespace nmt
