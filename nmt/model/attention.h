// Attention over the encoder memory: one interface, four scores (docs/model.md, "Attention").
//   Bahdanau (additive, "mlp")  e_j = v^T tanh(W q + U h_j)            Bahdanau et al. 2015, A.1.2
//   Luong dot                   e_j = q^T h_j   (q^T P h_j if D != 2H)  Luong et al. 2015, 3.1
//   Luong general               e_j = q^T W h_j
//   Luong concat                e_j = v^T tanh(W [q; h_j])
//   a = softmax(e) over real source positions (or sparsemax, 1.5-entmax: attention_normaliser.h),
//   or over a local window with a Gaussian around p_t (local-m, local-p, local-p-offset: attention_window.h);
//   context c = sum_j a_j h_j.
// The query q is the decoder state: s_{t-1} in Bahdanau-style decoders, s_t in Luong style.
// The parts that depend only on the source (U h_j, P h_j, W h_j, the h_j half of W [q; h_j]) are the
// "keys", computed once per sentence by precompute_keys() and carried in the decoder state, so
// modules keep no per-batch state.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>

#include <memory>

#include "nmt/model/model_config.h"

namespace nmt {

struct AttentionOutput {
  at::Tensor context;  // [batch, 2H]
  at::Tensor weights;  // [batch, src_len], rows sum to 1, exactly 0 at padded positions
};

/// Every score as one formula over three optional weights, as inference reads them
/// (InferenceAttention): keys k_j = key_weight h_j (h_j itself when undefined), query q' =
/// query_weight q (q itself when undefined), e_j = v^T tanh(q' + k_j) when v is defined, else q'^T k_j.
struct AttentionParts {
  at::Tensor key_weight;    // [K, 2H] or undefined
  at::Tensor query_weight;  // [K, D] or undefined
  at::Tensor v;             // [K] or undefined
};

/// Where the attention looks, as inference reads it: the window and the position network of
/// local-p, p_t = (n - 1) sigmoid(v_p^T tanh(W_p q)), or local-p-offset, p_t = min(t, n - 1) + W tanh(...).
struct AttentionWindowParts {
  AttentionWindow window = AttentionWindow::global;
  std::int64_t size = 0;       // W
  at::Tensor position_weight;  // W_p [A, D]: local-p and local-p-offset only
  at::Tensor position_v;       // v_p [1, A]: local-p and local-p-offset only
};

class AttentionImpl : public torch::nn::Module {
 public:
  /// memory [batch, src_len, 2H] -> keys [batch, src_len, K] (K depends on the score).
  virtual at::Tensor precompute_keys(const at::Tensor& memory) = 0;

  /// query [batch, D], keys from precompute_keys, memory [batch, src_len, 2H],
  /// mask [batch, src_len] bool (true at real tokens; every row needs one), step: the decoder
  /// step t from 0 (local-m's and local-p-offset's centre; the other windows ignore it).
  AttentionOutput forward(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& memory,
                          const at::Tensor& mask, std::int64_t step = 0);

  /// Unnormalised scores e [batch, src_len] (exposed for gradient checks); mask as above or
  /// undefined: -inf where it is false (the padding need not be scored at all).
  virtual at::Tensor score(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& mask = at::Tensor()) = 0;

  /// This score's parameters in the common form above (views of the parameters).
  virtual AttentionParts parts() const = 0;

  /// How forward() turns scores into weights: softmax unless make_attention says otherwise.
  AttentionNormaliser normaliser() const { return normaliser_; }
  void set_normaliser(AttentionNormaliser normaliser) { normaliser_ = normaliser; }

  /// Where forward() looks: global unless make_attention says otherwise. local-p and
  /// local-p-offset register their position network, position_layer (W_p [attention_size, query_size]) and position_energy
  /// (v_p [1, attention_size]), no biases.
  void set_window(AttentionWindow window, std::int64_t size, std::int64_t query_size, std::int64_t attention_size);
  AttentionWindowParts window_parts() const;

  /// The Gumbel-softmax temperature of hard attention in training (gumbel_temperature; 1 at first).
  void set_temperature(double temperature) { temperature_ = temperature; }

  /// local-p's or local-p-offset's centres p [batch] from the query [batch, D], the mask and the
  /// decoder step (exposed for gradient checks).
  at::Tensor learnt_centres(const at::Tensor& query, const at::Tensor& mask, std::int64_t step);

 private:
  AttentionNormaliser normaliser_ = AttentionNormaliser::softmax;
  AttentionWindow window_ = AttentionWindow::global;
  std::int64_t window_size_ = 0;
  double temperature_ = 1;
  torch::nn::Linear position_layer_{nullptr}, position_energy_{nullptr};  // local-p, local-p-offset
};

/// Bahdanau: query_layer W [A, D], key_layer U [A, 2H], energy_layer v [1, A]; no biases.
class BahdanauAttention : public AttentionImpl {
 public:
  BahdanauAttention(std::int64_t query_size, std::int64_t memory_size, std::int64_t attention_size);
  at::Tensor precompute_keys(const at::Tensor& memory) override;  // U h_j: [batch, src_len, A]
  at::Tensor score(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& mask = at::Tensor()) override;
  AttentionParts parts() const override;

 private:
  torch::nn::Linear query_layer_{nullptr}, key_layer_{nullptr}, energy_layer_{nullptr};
};

/// Luong dot: keys are h_j, or P h_j with key_layer P [D, 2H] when D != 2H.
class DotAttention : public AttentionImpl {
 public:
  DotAttention(std::int64_t query_size, std::int64_t memory_size);
  at::Tensor precompute_keys(const at::Tensor& memory) override;  // [batch, src_len, D]
  at::Tensor score(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& mask = at::Tensor()) override;
  AttentionParts parts() const override;

 private:
  torch::nn::Linear key_layer_{nullptr};  // null when D == 2H
};

/// Luong general: key_layer W [D, 2H], keys W h_j.
class GeneralAttention : public AttentionImpl {
 public:
  GeneralAttention(std::int64_t query_size, std::int64_t memory_size);
  at::Tensor precompute_keys(const at::Tensor& memory) override;  // [batch, src_len, D]
  at::Tensor score(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& mask = at::Tensor()) override;
  AttentionParts parts() const override;

 private:
  torch::nn::Linear key_layer_{nullptr};
};

/// Luong concat: concat_layer W [A, D + 2H] (no bias), energy_layer v [1, A].
/// W [q; h_j] = W[:, :D] q + W[:, D:] h_j; the second term is the key.
class ConcatAttention : public AttentionImpl {
 public:
  ConcatAttention(std::int64_t query_size, std::int64_t memory_size, std::int64_t attention_size);
  at::Tensor precompute_keys(const at::Tensor& memory) override;  // [batch, src_len, A]
  at::Tensor score(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& mask = at::Tensor()) override;
  AttentionParts parts() const override;

 private:
  std::int64_t query_size_;
  torch::nn::Linear concat_layer_{nullptr}, energy_layer_{nullptr};
};

/// The attention the config names, with query size D and memory size 2H, and its normaliser.
std::shared_ptr<AttentionImpl> make_attention(const ModelConfig& config);

}  // namespace nmt
