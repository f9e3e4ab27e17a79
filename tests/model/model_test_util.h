// Small models and batches for the model tests.
#pragma once

#include <ATen/ATen.h>

#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "nmt/data/batch.h"
#include "nmt/data/parallel_corpus.h"
#include "nmt/model/model_config.h"
#include "nmt/model/seq2seq.h"

namespace nmt::test {

/// A small config (E 16, H 12, D 20, A 14, vocabularies 37/41) that exercises every size mismatch.
inline ModelConfig tiny_config(AttentionType attention, DecoderStyle style, std::int64_t layers = 1) {
  ModelConfig config;
  config.source_vocab_size = 37;
  config.target_vocab_size = 41;
  config.embedding_size = 16;
  config.encoder_hidden_size = 12;
  config.decoder_hidden_size = 20;
  config.attention_size = 14;
  config.encoder_layers = layers;
  config.decoder_layers = layers;
  config.attention = attention;
  config.decoder_style = style;
  config.dropout = 0.0;
  return config;
}

/// How a model's attention turns scores into weights, beside its score and style: the normaliser
/// and the window (local windows of W = 2 here, so that the tests' short sources are cut).
struct AttentionKind {
  AttentionNormaliser normaliser = AttentionNormaliser::softmax;
  AttentionWindow window = AttentionWindow::global;

  void apply(ModelConfig& config) const {
    config.attention_normaliser = normaliser;
    config.attention_window = window;
    if (window != AttentionWindow::global) config.attention_window_size = 2;
  }
  /// "" for softmax over every position, else e.g. "_sparsemax" or "_local_p" (a test name's part).
  std::string suffix() const {
    std::string text;
    if (normaliser != AttentionNormaliser::softmax) text += "_" + name_of(normaliser);
    if (window != AttentionWindow::global) text += "_" + name_of(window);
    for (char& c : text) c = c == '-' ? '_' : c;
    return text;
  }
  bool operator<(const AttentionKind& other) const {
    return std::tie(normaliser, window) < std::tie(other.normaliser, other.window);
  }
  bool operator==(const AttentionKind& other) const {
    return normaliser == other.normaliser && window == other.window;
  }
};

/// The kinds beyond softmax over every position: sparsemax, 1.5-entmax, hard, local-m, local-p,
/// local-p-offset.
inline std::vector<AttentionKind> other_attention_kinds() {
  return {{AttentionNormaliser::sparsemax, AttentionWindow::global},
          {AttentionNormaliser::entmax15, AttentionWindow::global},
          {AttentionNormaliser::hard, AttentionWindow::global},
          {AttentionNormaliser::softmax, AttentionWindow::local_m},
          {AttentionNormaliser::softmax, AttentionWindow::local_p},
          {AttentionNormaliser::softmax, AttentionWindow::local_p_offset}};
}

/// An architecture for the parameterised tests that run every one: score, decoder style, layers
/// and attention kind.
using Architecture = std::tuple<AttentionType, DecoderStyle, std::int64_t, AttentionKind>;

/// tiny_config of the architecture.
inline ModelConfig architecture_config(const Architecture& architecture) {
  const auto [attention, style, layers, kind] = architecture;
  ModelConfig config = tiny_config(attention, style, layers);
  kind.apply(config);
  return config;
}

/// A test name's part: "general_luong_1layers_sparsemax".
inline std::string architecture_name(const Architecture& architecture) {
  const auto [attention, style, layers, kind] = architecture;
  return name_of(attention) + "_" + name_of(style) + "_" + std::to_string(layers) + "layers" + kind.suffix();
}

/// Central finite differences (step 1e-6) of loss() against autograd's gradients, for each named
/// tensor of `checked` (double precision, leaves: requires_grad set or parameters), at about
/// `samples` elements of each: |autograd - numeric| <= 1e-6 + 1e-5 |numeric|. Returns autograd's
/// gradients in the order of `checked`.
std::vector<at::Tensor> expect_gradients_match_finite_differences(
    const std::function<at::Tensor()>& loss, const std::vector<std::pair<std::string, at::Tensor>>& checked,
    std::int64_t samples = 40);

/// Random id sequences of the given lengths, ids in [4, vocab).
inline std::vector<std::vector<int>> random_sequences(const std::vector<int>& lengths, int vocab, std::uint64_t seed) {
  at::manual_seed(seed);
  std::vector<std::vector<int>> out;
  for (const int n : lengths) {
    const auto ids = at::randint(4, vocab, {n}, at::kLong);
    out.emplace_back(ids.data_ptr<std::int64_t>(), ids.data_ptr<std::int64_t>() + n);
  }
  return out;
}

/// A batch of pairs with varied lengths (so that padding occurs on both sides).
inline Batch varied_batch(const ModelConfig& config, std::uint64_t seed = 3) {
  const auto corpus = ParallelCorpus::from_sequences(
      random_sequences({7, 3, 5, 1, 6}, static_cast<int>(config.source_vocab_size), seed),
      random_sequences({4, 6, 2, 5, 3}, static_cast<int>(config.target_vocab_size), seed + 1));
  return make_batch(corpus, {0, 1, 2, 3, 4});
}

/// Trains `model` for `steps` Adam steps (learning rate 0.04) on `batch` and leaves it in evaluation
/// mode: peaky distributions and EOS where targets end, far from memorised.
void fit_briefly(Seq2Seq& model, const Batch& batch, int steps = 20);

}  // namespace nmt::test
