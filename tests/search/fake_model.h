// A scripted model for search tests: row r of the batch given to encode() emits script[r] token by
// token (then EOS), with log-probability -0.1 for the scripted token, -3.0 for token 5 (the
// runner-up) and -8.0 for every other token. Attention at step t is one-hot at source position
// t mod length. The row identity travels in DecoderState.hidden and the step in .feed, so beams
// and finished rows that are reordered or dropped keep their scripts.
#pragma once

#include <ATen/ATen.h>

#include <vector>

#include "nmt/data/tokenizer.h"
#include "nmt/model/decoder_state.h"

namespace nmt::test {

class FakeModel : public IncrementalDecoder {
 public:
  FakeModel(std::vector<std::vector<int>> scripts, std::int64_t vocab) : scripts_(std::move(scripts)), vocab_(vocab) {}

  DecoderState encode(const at::Tensor& source, const at::Tensor& source_lengths) override {
    const std::int64_t batch = source.size(0);
    DecoderState state;
    state.memory = at::zeros({batch, source.size(1), 1});
    state.keys = state.memory;
    state.mask = at::arange(source.size(1)).unsqueeze(0) < source_lengths.unsqueeze(1);
    state.hidden = at::arange(batch, at::kFloat).view({1, batch, 1});
    state.feed = at::zeros({batch, 1});
    return state;
  }

  StepOutput step(const DecoderState& state, const at::Tensor& previous_tokens) override {
    ++steps_;
    const std::int64_t batch = previous_tokens.size(0);
    at::Tensor log_probs = at::full({batch, vocab_}, -8.0);
    at::Tensor attention = at::zeros_like(state.mask, at::kFloat);
    for (std::int64_t r = 0; r < batch; ++r) {
      const auto row = static_cast<std::size_t>(state.hidden[0][r][0].item<float>());
      const auto t = static_cast<std::size_t>(state.feed[r][0].item<float>());
      const int token = t < scripts_[row].size() ? scripts_[row][t] : SpecialIds::kEos;
      log_probs[r][5] = -3.0;
      log_probs[r][token] = -0.1;
      const std::int64_t length = state.mask[r].sum().item<std::int64_t>();
      attention[r][static_cast<std::int64_t>(t) % length] = 1.0;
    }
    DecoderState next = state;
    next.feed = state.feed + 1;
    return {log_probs, attention, next};
  }

  std::int64_t target_vocab_size() const override { return vocab_; }
  int steps() const { return steps_; }

 private:
  std::vector<std::vector<int>> scripts_;
  std::int64_t vocab_;
  int steps_ = 0;
};

/// A source batch with the given lengths (EOS included), ids 10.
inline std::pair<at::Tensor, at::Tensor> source_batch(const std::vector<std::int64_t>& lengths) {
  const std::int64_t longest = *std::max_element(lengths.begin(), lengths.end());
  at::Tensor source = at::full({static_cast<std::int64_t>(lengths.size()), longest}, SpecialIds::kPad, at::kLong);
  for (std::size_t r = 0; r < lengths.size(); ++r) source[static_cast<std::int64_t>(r)].slice(0, 0, lengths[r]).fill_(10);
  return {source, at::tensor(lengths, at::kLong)};
}

}  // namespace nmt::test
