// A scripted model for search tests: row r of the batch given to encode() emits script[r] token by
// token (then EOS), with log-probability -0.1 for the scripted token, -3.0 for token 5 (the
// runner-up) and -8.0 for every other token. Attention at step t is one-hot at source position
// t mod length. Each row's identity and step travel in the fakes' own state (FakeState), so beams
// and finished rows that are reordered or dropped keep their scripts.
#pragma once

#include <ATen/ATen.h>

#include <functional>
#include <initializer_list>
#include <memory>
#include <vector>

#include "nmt/data/tokenizer.h"
#include "nmt/model/incremental_decoder.h"

namespace nmt::test {

/// The fakes' own state, opaque to search like the real model's: per row, the row of the batch
/// given to encode() it descends from, and what the fake carries from step to step.
struct FakeState final : DecoderState {
  at::Tensor source;   // [sources, src_len] int64: the batch given to encode() (shared, never copied)
  at::Tensor lengths;  // [sources] int64: its real lengths
  at::Tensor origin;   // [batch] int64: the source row of each row
  at::Tensor carry;    // [batch, K] float: the fake's per-row memory

  std::int64_t batch_size() const override { return origin.size(0); }
  DecoderStatePtr select(const at::Tensor& indices) const override {
    auto picked = std::make_shared<FakeState>(*this);
    picked->origin = origin.index_select(0, indices.to(at::kCPU));
    picked->carry = carry.index_select(0, indices.to(at::kCPU));
    return picked;
  }
  std::size_t row_origin(std::int64_t r) const { return static_cast<std::size_t>(origin[r].item<std::int64_t>()); }
  std::int64_t row_length(std::int64_t r) const { return lengths[origin[r]].item<std::int64_t>(); }
  /// A new state for the next step: the same rows, carry to be filled in.
  std::shared_ptr<FakeState> next() const { return std::make_shared<FakeState>(*this); }
};

/// The state both fakes start from: row r descends from source row r and carries `carry`.
inline DecoderStatePtr fake_state(const at::Tensor& source, const at::Tensor& source_lengths, at::Tensor carry) {
  auto state = std::make_shared<FakeState>();
  state->source = source;
  state->lengths = source_lengths.to(at::kCPU, at::kLong);
  state->origin = at::arange(source.size(0), at::kLong);
  state->carry = std::move(carry);
  return state;
}

inline const FakeState& fake(const DecoderState& state) { return dynamic_cast<const FakeState&>(state); }

class FakeModel : public IncrementalDecoder {
 public:
  FakeModel(std::vector<std::vector<int>> scripts, std::int64_t vocab) : scripts_(std::move(scripts)), vocab_(vocab) {}

  DecoderStatePtr encode(const at::Tensor& source, const at::Tensor& source_lengths) const override {
    return fake_state(source, source_lengths, at::zeros({source.size(0), 1}));  // carry: the step
  }

  StepOutput step(const DecoderState& opaque, const at::Tensor& previous_tokens) const override {
    const FakeState& state = fake(opaque);
    ++steps_;
    const std::int64_t batch = previous_tokens.size(0);
    batch_sizes_.push_back(batch);
    at::Tensor log_probs = at::full({batch, vocab_}, -8.0);
    at::Tensor attention = at::zeros({batch, state.source.size(1)});
    for (std::int64_t r = 0; r < batch; ++r) {
      const std::size_t row = state.row_origin(r);
      const auto t = static_cast<std::size_t>(state.carry[r][0].item<float>());
      const int token = t < scripts_[row].size() ? scripts_[row][t] : SpecialIds::kEos;
      log_probs[r][5] = -3.0;
      log_probs[r][token] = -0.1;
      attention[r][static_cast<std::int64_t>(t) % state.row_length(r)] = 1.0;
    }
    auto next = state.next();
    next->carry = state.carry + 1;
    return {log_probs, attention, next};
  }

  std::int64_t target_vocab_size() const override { return vocab_; }
  int steps() const { return steps_; }
  const std::vector<std::int64_t>& batch_sizes() const { return batch_sizes_; }  // rows seen by each step

 private:
  std::vector<std::vector<int>> scripts_;
  std::int64_t vocab_;
  mutable int steps_ = 0;
  mutable std::vector<std::int64_t> batch_sizes_;
};

/// A model whose log-probabilities are any function of (row given to encode(), tokens so far), for
/// beam search tests where hypotheses of one sentence must see different distributions. Attention
/// is one-hot at source position (previous token mod length), so each row depends on the
/// hypothesis' own history. Each row's tokens travel in its carry (-1 past the end).
class PrefixModel : public IncrementalDecoder {
 public:
  using Rule = std::function<std::vector<float>(std::size_t row, const std::vector<int>& prefix)>;
  PrefixModel(Rule rule, std::int64_t vocab) : rule_(std::move(rule)), vocab_(vocab) {}

  DecoderStatePtr encode(const at::Tensor& source, const at::Tensor& source_lengths) const override {
    return fake_state(source, source_lengths, at::full({source.size(0), kMaxTokens}, -1.0));
  }

  StepOutput step(const DecoderState& opaque, const at::Tensor& previous_tokens) const override {
    const FakeState& state = fake(opaque);
    const std::int64_t batch = previous_tokens.size(0);
    batch_sizes_.push_back(batch);
    at::Tensor log_probs = at::empty({batch, vocab_});
    at::Tensor attention = at::zeros({batch, state.source.size(1)});
    auto next = state.next();
    next->carry = state.carry.clone();
    for (std::int64_t r = 0; r < batch; ++r) {
      std::vector<int> prefix;
      for (std::int64_t t = 0; t < kMaxTokens && state.carry[r][t].item<float>() >= 0; ++t) {
        prefix.push_back(static_cast<int>(state.carry[r][t].item<float>()));
      }
      const auto previous = static_cast<int>(previous_tokens[r].item<std::int64_t>());
      if (previous != SpecialIds::kBos) {
        next->carry[r][static_cast<std::int64_t>(prefix.size())] = previous;
        prefix.push_back(previous);
      }
      log_probs[r] = at::tensor(rule_(state.row_origin(r), prefix));
      attention[r][previous % state.row_length(r)] = 1.0;
    }
    return {log_probs, attention, next};
  }

  std::int64_t target_vocab_size() const override { return vocab_; }
  const std::vector<std::int64_t>& batch_sizes() const { return batch_sizes_; }

 private:
  static constexpr std::int64_t kMaxTokens = 64;
  Rule rule_;
  std::int64_t vocab_;
  mutable std::vector<std::int64_t> batch_sizes_;
};

/// A model whose outputs for a row depend only on that row's source tokens and its own tokens so
/// far (a hash of both), never on the rest of the batch: the batch-invariant model that search must
/// not spoil. Log-probabilities are multiples of -0.5 (exact in float, many ties); attention puts
/// weight 1, 2 or 3 (normalised) on each real source position.
class HashModel : public IncrementalDecoder {
 public:
  explicit HashModel(std::int64_t vocab) : vocab_(vocab) {}

  DecoderStatePtr encode(const at::Tensor& source, const at::Tensor& source_lengths) const override {
    return fake_state(source, source_lengths, at::full({source.size(0), kMaxTokens}, -1.0));
  }

  StepOutput step(const DecoderState& opaque, const at::Tensor& previous_tokens) const override {
    const FakeState& state = fake(opaque);
    const std::int64_t batch = previous_tokens.size(0);
    at::Tensor log_probs = at::empty({batch, vocab_});
    at::Tensor attention = at::zeros({batch, state.source.size(1)});
    auto next = state.next();
    next->carry = state.carry.clone();
    for (std::int64_t r = 0; r < batch; ++r) {
      std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the source and the prefix
      const auto mix = [&h](std::int64_t v) { h = (h ^ static_cast<std::uint64_t>(v + 7)) * 1099511628211ull; };
      const std::int64_t length = state.row_length(r);
      const auto source = static_cast<std::int64_t>(state.row_origin(r));
      for (std::int64_t j = 0; j < length; ++j) mix(state.source[source][j].item<std::int64_t>());
      std::int64_t t = 0;
      for (; t < kMaxTokens && state.carry[r][t].item<float>() >= 0; ++t) mix(static_cast<std::int64_t>(state.carry[r][t].item<float>()));
      const std::int64_t previous = previous_tokens[r].item<std::int64_t>();
      if (previous != SpecialIds::kBos) {
        next->carry[r][t] = static_cast<float>(previous);
        mix(previous);
      }
      for (std::int64_t w = 0; w < vocab_; ++w) {
        std::uint64_t x = (h ^ static_cast<std::uint64_t>(w)) * 0x9E3779B97F4A7C15ull;
        log_probs[r][w] = -0.5f * static_cast<float>(1 + (x >> 59) % 8);
      }
      float total = 0;
      for (std::int64_t j = 0; j < length; ++j) total += static_cast<float>(1 + ((h >> (2 * j)) % 3));
      for (std::int64_t j = 0; j < length; ++j) attention[r][j] = static_cast<float>(1 + ((h >> (2 * j)) % 3)) / total;
    }
    return {log_probs, attention, next};
  }

  std::int64_t target_vocab_size() const override { return vocab_; }

 private:
  static constexpr std::int64_t kMaxTokens = 64;
  std::int64_t vocab_;
};

/// Log-probabilities for a PrefixModel rule: `base` - 0.01 * w for token w (all distinct, no ties),
/// -30 for PAD, UNK and BOS, then the given (token, value) pairs.
inline std::vector<float> log_probs(std::int64_t vocab, std::initializer_list<std::pair<int, float>> set,
                                    float base = -10.0f) {
  std::vector<float> out(static_cast<std::size_t>(vocab));
  for (std::size_t w = 0; w < out.size(); ++w) out[w] = base - 0.01f * static_cast<float>(w);
  for (const int special : {SpecialIds::kPad, SpecialIds::kUnk, SpecialIds::kBos}) out[static_cast<std::size_t>(special)] = -30.0f;
  for (const auto& [token, value] : set) out[static_cast<std::size_t>(token)] = value;
  return out;
}

/// A source batch with the given lengths (EOS included), ids 10.
inline std::pair<at::Tensor, at::Tensor> source_batch(const std::vector<std::int64_t>& lengths) {
  const std::int64_t longest = *std::max_element(lengths.begin(), lengths.end());
  at::Tensor source = at::full({static_cast<std::int64_t>(lengths.size()), longest}, SpecialIds::kPad, at::kLong);
  for (std::size_t r = 0; r < lengths.size(); ++r) source[static_cast<std::int64_t>(r)].slice(0, 0, lengths[r]).fill_(10);
  return {source, at::tensor(lengths, at::kLong)};
}

}  // namespace nmt::test
