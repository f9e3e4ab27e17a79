// Small models and batches for the model tests.
#pragma once

#include <ATen/ATen.h>

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
