#include "nmt/search/beam_search.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <map>
#include <set>
#include <tuple>

#include <c10/core/GradMode.h>
#include <torch/nn/functional/loss.h>

#include "nmt/core/error.h"
#include "nmt/data/tokenizer.h"
#include "nmt/model/inference/inference_model.h"
#include "nmt/model/seq2seq.h"
#include "nmt/search/search_strategy.h"
#include "nmt/search/greedy_search.h"
#include "tests/model/model_test_util.h"
#include "tests/search/fake_model.h"

namespace nmt {
namespace {

using test::HashModel;
using test::log_probs;
using test::PrefixModel;
using Tokens = std::vector<int>;
constexpr int kEos = SpecialIds::kEos;

SearchOptions beam(std::int64_t k, std::int64_t n, LengthPenalty lp = LengthPenalty::none) {
  SearchOptions options;
  options.beam_size = k;
  options.n_best = n;
  options.length_penalty = lp;
  return options;
}

// r as search adds it: float32, left to right from 0.
float sum(std::initializer_list<float> values) {
  float r = 0;
  for (const float v : values) r += v;
  return r;
}

std::vector<Tokens> tokens_of(const std::vector<Hypothesis>& hypotheses) {
  std::vector<Tokens> out;
  for (const auto& h : hypotheses) out.push_back(h.tokens);
  return out;
}

// Source tensors for sentences[ids] (EOS appended, padded).
std::pair<at::Tensor, at::Tensor> source_tensors(const std::vector<Tokens>& sentences,
                                                 const std::vector<std::size_t>& ids) {
  std::int64_t longest = 0;
  for (const auto id : ids) longest = std::max<std::int64_t>(longest, static_cast<std::int64_t>(sentences[id].size()) + 1);
  at::Tensor source = at::full({static_cast<std::int64_t>(ids.size()), longest}, SpecialIds::kPad, at::kLong);
  at::Tensor lengths = at::empty({static_cast<std::int64_t>(ids.size())}, at::kLong);
  for (std::size_t r = 0; r < ids.size(); ++r) {
    const Tokens& s = sentences[ids[r]];
    const auto row = static_cast<std::int64_t>(r);
    for (std::size_t j = 0; j < s.size(); ++j) source[row][static_cast<std::int64_t>(j)] = s[j];
    source[row][static_cast<std::int64_t>(s.size())] = kEos;
    lengths[row] = static_cast<std::int64_t>(s.size()) + 1;
  }
  return {source, lengths};
}

// Searches sentences[ids] batch by batch (greedy: one hypothesis each); results by sentence id.
std::vector<std::vector<Hypothesis>> search_in_batches(const IncrementalDecoder& model, const std::vector<Tokens>& sentences,
                                                       const std::vector<std::vector<std::size_t>>& batches,
                                                       const SearchOptions& options, bool greedy) {
  std::vector<std::vector<Hypothesis>> out(sentences.size());
  for (const auto& ids : batches) {
    const auto [source, lengths] = source_tensors(sentences, ids);
    std::vector<std::vector<Hypothesis>> results;
    if (greedy) {
      for (auto& h : greedy_search(model, source, lengths, options)) results.push_back({std::move(h)});
    } else {
      results = beam_search(model, source, lengths, options);
    }
    for (std::size_t r = 0; r < ids.size(); ++r) out[ids[r]] = std::move(results[r]);
  }
  return out;
}

std::vector<std::size_t> iota(std::size_t n) {
  std::vector<std::size_t> ids(n);
  std::iota(ids.begin(), ids.end(), 0);
  return ids;
}

// `order` cut into batches of `size`.
std::vector<std::vector<std::size_t>> batches_of(const std::vector<std::size_t>& order, std::size_t size) {
  std::vector<std::vector<std::size_t>> out;
  for (std::size_t i = 0; i < order.size(); i += size) {
    out.emplace_back(order.begin() + static_cast<std::ptrdiff_t>(i),
                     order.begin() + static_cast<std::ptrdiff_t>(std::min(order.size(), i + size)));
  }
  return out;
}

// Each sentence alone, and among neighbours in batches of 3, 7 (reversed), 4 (shuffled) and all:
// the same tokens, and scores and attention that differ by at most `tolerance` (0: bit for bit).
void expect_batch_invariant(const IncrementalDecoder& model, const std::vector<Tokens>& sentences,
                            const SearchOptions& options, bool greedy, double tolerance) {
  const std::size_t n = sentences.size();
  std::vector<std::size_t> reversed = iota(n), shuffled = iota(n);
  std::reverse(reversed.begin(), reversed.end());
  for (std::size_t i = 0; i < n; ++i) shuffled[i] = (i * 7) % n;  // n coprime to 7
  const auto alone = search_in_batches(model, sentences, batches_of(iota(n), 1), options, greedy);
  for (const auto& batching : {batches_of(iota(n), 3), batches_of(reversed, 7), batches_of(shuffled, 4), {iota(n)}}) {
    const auto together = search_in_batches(model, sentences, batching, options, greedy);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(together[i].size(), alone[i].size());
      for (std::size_t h = 0; h < alone[i].size(); ++h) {
        const Hypothesis &x = together[i][h], &y = alone[i][h];
        const std::string where = (greedy ? "greedy, " : "beam, ") + std::to_string(batching.size()) +
                                  " batches, sentence " + std::to_string(i) + ", hypothesis " + std::to_string(h);
        EXPECT_EQ(x.tokens, y.tokens) << where;
        EXPECT_EQ(x.finished, y.finished) << where;
        if (tolerance == 0) {
          EXPECT_EQ(x.log_prob, y.log_prob) << where;
          EXPECT_EQ(x.score, y.score) << where;
          if (options.keep_attention) {
            EXPECT_TRUE(at::equal(x.attention, y.attention)) << where;
          }
        } else {
          EXPECT_NEAR(x.log_prob, y.log_prob, tolerance) << where;
          EXPECT_NEAR(x.score, y.score, tolerance) << where;
        }
      }
    }
  }
}

// Walk-through (k 2): step 0 keeps [7] -0.1 and [8] -1.0; step 1 [7 9] -0.2 and [8 9] -1.1;
// step 2 finalizes both with EOS (ranks 0 and 1); the best live r is about -10.24, below the
// finished scores, so the sentence is done after 3 steps although its limit is 16.
TEST(BeamSearch, StopsWhenNoLiveHypothesisCanWin) {
  PrefixModel model(
      [](std::size_t, const Tokens& p) {
        if (p.empty()) return log_probs(20, {{7, -0.1f}, {8, -1.0f}});
        if (p == Tokens{7} || p == Tokens{8}) return log_probs(20, {{9, -0.1f}});
        if (p == Tokens{7, 9} || p == Tokens{8, 9}) return log_probs(20, {{kEos, -0.1f}});
        return log_probs(20, {});
      },
      20);
  const auto [source, lengths] = test::source_batch({4});
  const auto result = beam_search(model, source, lengths, beam(2, 2)).front();
  ASSERT_EQ(result.size(), 2u);
  EXPECT_EQ(tokens_of(result), (std::vector<Tokens>{{7, 9}, {8, 9}}));
  EXPECT_EQ(result[0].log_prob, sum({-0.1f, -0.1f, -0.1f}));
  EXPECT_EQ(result[1].log_prob, sum({-1.0f, -0.1f, -0.1f}));
  EXPECT_EQ(result[0].score, static_cast<double>(result[0].log_prob));  // lp none, no coverage
  EXPECT_TRUE(result[0].finished && result[1].finished);
  EXPECT_EQ(model.batch_sizes(), (std::vector<std::int64_t>{1, 2, 2}));
}

// Sentence i follows script i then EOS (-0.1 a token); with k 2 each is done one step after its
// EOS, so the batch holds 1 row per sentence at step 0, then 2 per sentence still running.
TEST(BeamSearch, FinishedSentencesLeaveTheBatch) {
  const std::vector<Tokens> scripts = {{11}, {12, 13, 14}, {15, 16, 17, 18, 19}};
  PrefixModel model(
      [&](std::size_t row, const Tokens& p) {
        const Tokens& script = scripts[row];
        if (p == script) return log_probs(24, {{kEos, -0.1f}});
        if (p.size() < script.size() && std::equal(p.begin(), p.end(), script.begin())) {
          return log_probs(24, {{script[p.size()], -0.1f}, {kEos, -20.0f}});
        }
        return log_probs(24, {{kEos, -20.0f}});
      },
      24);
  const auto [source, lengths] = test::source_batch({3, 6, 4});
  const auto results = beam_search(model, source, lengths, beam(2, 1));
  ASSERT_EQ(results.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    ASSERT_EQ(results[i].size(), 1u);
    EXPECT_EQ(results[i][0].tokens, scripts[i]);
    float r = 0;
    for (std::size_t t = 0; t <= scripts[i].size(); ++t) r += -0.1f;
    EXPECT_EQ(results[i][0].log_prob, r);
  }
  // Sentence 0 runs steps 0-1, sentence 1 steps 0-3, sentence 2 steps 0-5.
  EXPECT_EQ(model.batch_sizes(), (std::vector<std::int64_t>{3, 6, 4, 4, 2, 2}));
}

// Script [7] then EOS; 5 is always -3.0; EOS off the script -0.2. With min length 3 (k 2):
// step 3 ranks [7 5 5]+EOS -6.3, [7 5 5 5] -9.1, [5 5 5]+EOS -9.2 (rank 2 >= k: dropped), ...
PrefixModel min_length_model() {
  return PrefixModel(
      [](std::size_t, const Tokens& p) {
        if (p.empty()) return log_probs(20, {{7, -0.1f}, {5, -3.0f}, {kEos, -20.0f}});
        if (p == Tokens{7}) return log_probs(20, {{kEos, -0.1f}, {5, -3.0f}});
        return log_probs(20, {{kEos, -0.2f}, {5, -3.0f}});
      },
      20);
}

TEST(BeamSearch, MinLengthBlocksEarlyEos) {
  PrefixModel model = min_length_model();
  const auto [source, lengths] = test::source_batch({4});
  SearchOptions options = beam(2, 1);
  options.min_length = 3;
  const auto best = beam_search(model, source, lengths, options).front().at(0);
  EXPECT_EQ(best.tokens, (Tokens{7, 5, 5}));
  EXPECT_EQ(best.log_prob, sum({-0.1f, -3.0f, -3.0f, -0.2f}));
  EXPECT_EQ(model.batch_sizes().size(), 4u);
  // Greedy takes the same path; without the minimum both stop at once: [7] EOS.
  PrefixModel greedy_model = min_length_model();
  EXPECT_EQ(greedy_search(greedy_model, source, lengths, options).front().tokens, (Tokens{7, 5, 5}));
  PrefixModel free_model = min_length_model();
  EXPECT_EQ(beam_search(free_model, source, lengths, beam(2, 1)).front().at(0).tokens, (Tokens{7}));
}

// k 2, n 2. Step 1 ranks: [7]+EOS -0.2 (rank 0: finished), [7 9] -0.3 (live), [8]+EOS -0.55
// (rank 2 >= k: skipped although it would be the second best), [7 4] -10.14 (live).
// Step 2: [7 9]+EOS -1.0 (rank 0: finished). Had every EOS among the 2k counted, [8] would be 2nd.
TEST(BeamSearch, EosCountsOnlyAmongTheFirstKCandidates) {
  PrefixModel model(
      [](std::size_t, const Tokens& p) {
        if (p.empty()) return log_probs(20, {{7, -0.1f}, {8, -0.5f}});
        if (p == Tokens{7}) return log_probs(20, {{kEos, -0.1f}, {9, -0.2f}});
        if (p == Tokens{8}) return log_probs(20, {{kEos, -0.05f}});
        if (p == Tokens{7, 9}) return log_probs(20, {{kEos, -0.7f}});
        return log_probs(20, {{kEos, -20.0f}});
      },
      20);
  const auto [source, lengths] = test::source_batch({4});
  const auto result = beam_search(model, source, lengths, beam(2, 2)).front();
  EXPECT_EQ(tokens_of(result), (std::vector<Tokens>{{7}, {7, 9}}));
  EXPECT_EQ(result[0].log_prob, sum({-0.1f, -0.1f}));
  EXPECT_EQ(result[1].log_prob, sum({-0.1f, -0.2f, -0.7f}));
  EXPECT_EQ(model.batch_sizes(), (std::vector<std::int64_t>{1, 2, 2}));
}

// Nothing ever wants EOS: every hypothesis stops at L = floor(1.5 * 4) + 2 = 8 tokens, unfinished.
TEST(BeamSearch, MaxLengthLeavesHypothesesUnfinished) {
  PrefixModel model([](std::size_t, const Tokens&) { return log_probs(20, {{9, -0.1f}, {5, -3.0f}, {kEos, -20.0f}}); },
                    20);
  const auto [source, lengths] = test::source_batch({5});
  SearchOptions options = beam(3, 3);
  options.max_length_a = 1.5;
  options.max_length_b = 2;
  const auto result = beam_search(model, source, lengths, options).front();
  ASSERT_EQ(result.size(), 3u);
  EXPECT_EQ(result[0].tokens, Tokens(8, 9));
  EXPECT_EQ(result[0].log_prob, sum({-0.1f, -0.1f, -0.1f, -0.1f, -0.1f, -0.1f, -0.1f, -0.1f}));
  for (const auto& h : result) {
    EXPECT_FALSE(h.finished);
    EXPECT_EQ(h.tokens.size(), 8u);
    EXPECT_NEAR(h.log_prob, h.tokens == Tokens(8, 9) ? -0.8 : -3.7, 1e-5);  // others: one 5
  }
  EXPECT_GE(result[1].score, result[2].score);
  EXPECT_NE(result[1].tokens, result[2].tokens);
  EXPECT_EQ(model.batch_sizes(), (std::vector<std::int64_t>{1, 3, 3, 3, 3, 3, 3, 3}));
}

// Script 7 8 7 8 7; 5 is -3.0 everywhere; EOS ends the script (-0.1) or a detour (-0.3).
PrefixModel repeating_model() {
  return PrefixModel(
      [](std::size_t, const Tokens& p) {
        const Tokens script = {7, 8, 7, 8, 7};
        if (p == script) return log_probs(20, {{kEos, -0.1f}, {5, -3.0f}});
        if (p.size() < script.size() && std::equal(p.begin(), p.end(), script.begin())) {
          return log_probs(20, {{script[p.size()], -0.1f}, {5, -3.0f}, {kEos, -20.0f}});
        }
        return log_probs(20, {{kEos, -0.3f}, {5, -3.0f}});
      },
      20);
}

bool repeats_a_bigram(const Tokens& tokens) {
  std::set<std::pair<int, int>> seen;
  for (std::size_t i = 1; i < tokens.size(); ++i) {
    if (!seen.insert({tokens[i - 1], tokens[i]}).second) return true;
  }
  return false;
}

TEST(BeamSearch, NoRepeatNgramBlocksRepeatedBigrams) {
  const auto [source, lengths] = test::source_batch({4});
  SearchOptions options = beam(3, 3);
  options.no_repeat_ngram = 2;
  // Greedy: at [7 8 7] the script's 8 would repeat (7 8); 5 instead, then EOS.
  PrefixModel greedy_model = repeating_model();
  const Hypothesis greedy = greedy_search(greedy_model, source, lengths, options).front();
  EXPECT_EQ(greedy.tokens, (Tokens{7, 8, 7, 5}));
  EXPECT_EQ(greedy.log_prob, sum({-0.1f, -0.1f, -0.1f, -3.0f, -0.3f}));
  PrefixModel unblocked = repeating_model();
  EXPECT_EQ(greedy_search(unblocked, source, lengths, {}).front().tokens, (Tokens{7, 8, 7, 8, 7}));
  // Beam (k 3): finished in order [5] -3.3 (step 1), [7 5] -3.4 (step 2), [7 8 5] -3.5 (step 3),
  // [7 8 7 5] -3.6 (step 4); [5 5]+5 and [7 8 5 5]+5 are blocked on the way.
  PrefixModel model = repeating_model();
  const auto result = beam_search(model, source, lengths, options).front();
  ASSERT_EQ(result.size(), 3u);
  EXPECT_EQ(tokens_of(result), (std::vector<Tokens>{{5}, {7, 5}, {7, 8, 5}}));
  EXPECT_EQ(result[0].log_prob, sum({-3.0f, -0.3f}));
  EXPECT_EQ(result[2].log_prob, sum({-0.1f, -0.1f, -3.0f, -0.3f}));
  for (const auto& h : result) EXPECT_FALSE(repeats_a_bigram(h.tokens)) << h.tokens.size();
  // n = 1: no token twice.
  options.no_repeat_ngram = 1;
  PrefixModel unigram_model = repeating_model();
  const auto unigram = beam_search(unigram_model, source, lengths, options);
  for (const auto& h : unigram.front()) {
    EXPECT_EQ(std::set<int>(h.tokens.begin(), h.tokens.end()).size(), h.tokens.size());
  }
}

// k 4, n 4: step 1 ranks the four EOS first: [9] -0.4, [8] -0.7, [7] -1.1, [10] -2.4.
PrefixModel four_endings_model() {
  return PrefixModel(
      [](std::size_t, const Tokens& p) {
        if (p.empty()) return log_probs(20, {{7, -0.1f}, {8, -0.2f}, {9, -0.3f}, {10, -0.4f}});
        const float eos = p == Tokens{7} ? -1.0f : p == Tokens{8} ? -0.5f : p == Tokens{9} ? -0.1f : -2.0f;
        return log_probs(20, {{kEos, p.size() == 1 ? eos : -20.0f}});
      },
      20);
}

TEST(BeamSearch, NBestIsSortedByScoreAndDistinct) {
  const auto [source, lengths] = test::source_batch({4});
  for (const auto lp : {LengthPenalty::none, LengthPenalty::average}) {
    PrefixModel model = four_endings_model();
    const auto result = beam_search(model, source, lengths, beam(4, 4, lp)).front();
    EXPECT_EQ(tokens_of(result), (std::vector<Tokens>{{9}, {8}, {7}, {10}}));
    const std::vector<float> r = {sum({-0.3f, -0.1f}), sum({-0.2f, -0.5f}), sum({-0.1f, -1.0f}), sum({-0.4f, -2.0f})};
    const double lp_value = lp == LengthPenalty::average ? 2.0 : 1.0;  // |Y| = 2 (token + EOS)
    for (std::size_t i = 0; i < 4; ++i) {
      EXPECT_EQ(result[i].log_prob, r[i]);
      EXPECT_EQ(result[i].score, static_cast<double>(r[i]) / lp_value);
    }
    // Average: the live r ~ -10.14 could still reach -10.14 / 16 at the limit 16, above the 4th
    // best (-1.2), so one more step runs; none stops at once.
    EXPECT_EQ(model.batch_sizes().size(), lp == LengthPenalty::none ? 2u : 3u);
  }
}

// [7] EOS: r -1.0, |Y| 2. [8 9 10 11] EOS: r -1.1, |Y| 5. None prefers the short one; average
// (-0.5 vs -0.22) and gnmt 0.6 (-1.0 / (7/6)^0.6 = -0.9117 vs -1.1 / (10/6)^0.6 = -0.8096) the long.
TEST(BeamSearch, LengthPenaltyDecidesBetweenShortAndLong) {
  const auto rule = [](std::size_t, const Tokens& p) {
    if (p.empty()) return log_probs(20, {{7, -0.5f}, {8, -0.6f}});
    if (p == Tokens{7}) return log_probs(20, {{kEos, -0.5f}});
    if (p == Tokens{8}) return log_probs(20, {{9, -0.1f}, {kEos, -20.0f}});
    if (p == Tokens{8, 9}) return log_probs(20, {{10, -0.1f}, {kEos, -20.0f}});
    if (p == Tokens{8, 9, 10}) return log_probs(20, {{11, -0.1f}, {kEos, -20.0f}});
    if (p == Tokens{8, 9, 10, 11}) return log_probs(20, {{kEos, -0.2f}});
    return log_probs(20, {{kEos, -20.0f}});
  };
  const auto [source, lengths] = test::source_batch({4});
  const float short_r = sum({-0.5f, -0.5f}), long_r = sum({-0.6f, -0.1f, -0.1f, -0.1f, -0.2f});
  const Tokens short_y = {7}, long_y = {8, 9, 10, 11};
  PrefixModel none_model(rule, 20);
  const auto none = beam_search(none_model, source, lengths, beam(2, 2)).front();
  EXPECT_EQ(tokens_of(none), (std::vector<Tokens>{short_y, long_y}));
  PrefixModel average_model(rule, 20);
  const auto average = beam_search(average_model, source, lengths, beam(2, 2, LengthPenalty::average)).front();
  EXPECT_EQ(tokens_of(average), (std::vector<Tokens>{long_y, short_y}));
  EXPECT_EQ(average[0].score, static_cast<double>(long_r) / 5);
  PrefixModel gnmt_model(rule, 20);
  const auto gnmt = beam_search(gnmt_model, source, lengths, beam(2, 2, LengthPenalty::gnmt)).front();
  EXPECT_EQ(tokens_of(gnmt), (std::vector<Tokens>{long_y, short_y}));
  EXPECT_EQ(gnmt[0].score, static_cast<double>(long_r) / std::pow(10.0 / 6.0, 0.6));
  EXPECT_EQ(gnmt[1].score, static_cast<double>(short_r) / std::pow(7.0 / 6.0, 0.6));
  EXPECT_NEAR(gnmt[0].score, -0.8096, 1e-4);
}

// Attention is one-hot at (previous token mod 3) over a 3-position source. [7 8] EOS attends
// to 2 (BOS), 1 (7), 2 (8): C = (0, 1, 2), cp = beta log 1e-10. [6 7] EOS attends to 2, 0, 1:
// C = (1, 1, 1), cp = 0. So coverage turns the ranking around.
TEST(BeamSearch, CoveragePenaltyAndAttentionFollowEachHypothesis) {
  const auto rule = [](std::size_t, const Tokens& p) {
    if (p.empty()) return log_probs(20, {{7, -0.1f}, {6, -0.2f}});
    if (p == Tokens{7}) return log_probs(20, {{8, -0.1f}, {kEos, -20.0f}});
    if (p == Tokens{6}) return log_probs(20, {{7, -0.1f}, {kEos, -20.0f}});
    if (p == Tokens{7, 8} || p == Tokens{6, 7}) return log_probs(20, {{kEos, -0.1f}});
    return log_probs(20, {{kEos, -20.0f}});
  };
  const auto [source, lengths] = test::source_batch({3});
  SearchOptions options = beam(2, 2);
  options.keep_attention = true;
  PrefixModel plain_model(rule, 20);
  EXPECT_EQ(tokens_of(beam_search(plain_model, source, lengths, options).front()),
            (std::vector<Tokens>{{7, 8}, {6, 7}}));
  options.coverage_beta = 0.5;
  PrefixModel model(rule, 20);
  const auto result = beam_search(model, source, lengths, options).front();
  ASSERT_EQ(tokens_of(result), (std::vector<Tokens>{{6, 7}, {7, 8}}));
  EXPECT_EQ(result[0].score, static_cast<double>(sum({-0.2f, -0.1f, -0.1f})));
  EXPECT_EQ(result[1].score, static_cast<double>(sum({-0.1f, -0.1f, -0.1f})) + 0.5 * std::log(1e-10));
  EXPECT_TRUE(at::equal(result[0].attention, at::eye(3).index_select(0, at::tensor({2, 0, 1}, at::kLong))));
  EXPECT_TRUE(at::equal(result[1].attention, at::eye(3).index_select(0, at::tensor({2, 1, 2}, at::kLong))));
}

TEST(BeamSearch, BeamOneIsGreedyOnTheScriptedModel) {
  const std::vector<std::vector<int>> scripts = {{7, 8}, {9, 9, 9, 9}, {11, 12, 13}};
  test::FakeModel greedy_model(scripts, 20), beam_model(scripts, 20);
  const auto [source, lengths] = test::source_batch({3, 7, 5});
  SearchOptions options = beam(1, 1);
  options.keep_attention = true;
  const auto greedy = greedy_search(greedy_model, source, lengths, options);
  const auto beamed = beam_search(beam_model, source, lengths, options);
  for (std::size_t i = 0; i < scripts.size(); ++i) {
    EXPECT_EQ(beamed[i].at(0).tokens, greedy[i].tokens);
    EXPECT_EQ(beamed[i][0].log_prob, greedy[i].log_prob);
    EXPECT_TRUE(at::equal(beamed[i][0].attention, greedy[i].attention));
  }
  EXPECT_EQ(beam_model.batch_sizes(), greedy_model.batch_sizes());
}

// The strategy is chosen once from the options: beam 1 runs greedy search (its batches shrink as
// sentences finish, one hypothesis each), a wider beam runs beam search with its n-best lists.
TEST(SearchStrategy, BeamOneRunsGreedySearchAndWiderBeamsRunBeamSearch) {
  const std::vector<std::vector<int>> scripts = {{7, 8}, {9, 9, 9, 9}, {11, 12, 13}};
  const auto [source, lengths] = test::source_batch({3, 7, 5});
  for (const std::int64_t k : {1, 3}) {
    test::FakeModel direct_model(scripts, 20), strategy_model(scripts, 20);
    const SearchOptions options = beam(k, k);
    const auto via_strategy = SearchStrategy::make(options)->search(strategy_model, source, lengths);
    std::vector<std::vector<Hypothesis>> direct;
    if (k == 1) {
      for (Hypothesis& h : greedy_search(direct_model, source, lengths, options)) direct.push_back({std::move(h)});
    } else {
      direct = beam_search(direct_model, source, lengths, options);
    }
    ASSERT_EQ(via_strategy.size(), direct.size());
    for (std::size_t i = 0; i < direct.size(); ++i) {
      ASSERT_EQ(via_strategy[i].size(), direct[i].size()) << "beam " << k;
      for (std::size_t h = 0; h < direct[i].size(); ++h) {
        EXPECT_EQ(via_strategy[i][h].tokens, direct[i][h].tokens);
        EXPECT_EQ(via_strategy[i][h].score, direct[i][h].score);
      }
    }
    EXPECT_EQ(strategy_model.batch_sizes(), direct_model.batch_sizes()) << "beam " << k;
  }
}

TEST(BeamSearch, EmptyBatchAndValidation) {
  test::FakeModel model({}, 20);
  EXPECT_TRUE(beam_search(model, at::zeros({0, 3}, at::kLong), at::zeros({0}, at::kLong), {}).empty());
  SearchOptions options;
  options.beam_size = 0;
  const auto [source, lengths] = test::source_batch({3});
  EXPECT_THROW(beam_search(model, source, lengths, options), ConfigError);
}

// Search's half of batch invariance: with a model whose rows never see each other (and whose
// log-probabilities tie all the time), a sentence gets the same hypotheses, scores and attention,
// bit for bit, alone and in any batch, for greedy and for beam search with every option on.
TEST(BeamSearch, ResultsNeverDependOnTheBatch) {
  const std::vector<Tokens> sentences =
      test::random_sequences({1, 4, 9, 2, 7, 3, 8, 5, 6, 2, 9, 1, 5}, 30, /*seed=*/3);
  HashModel model(24);
  SearchOptions options = beam(4, 3, LengthPenalty::gnmt);
  options.coverage_beta = 0.3;
  options.no_repeat_ngram = 2;
  options.min_length = 1;
  options.max_length_a = 1.0;
  options.max_length_b = 3;
  options.keep_attention = true;
  expect_batch_invariant(model, sentences, options, /*greedy=*/true, 0.0);
  expect_batch_invariant(model, sentences, options, /*greedy=*/false, 0.0);
}

// ---------------------------------------------------------------------------------------------
// A real Seq2Seq (tiny) for every attention type and decoder style, trained for 20 Adam steps on
// 20 random pairs (sources of 1-12 subwords): peaky distributions and EOS where targets end, but
// far from memorised, so beam search and greedy disagree on most sentences.

using Architecture = std::tuple<AttentionType, DecoderStyle>;

struct Trained {
  Seq2Seq model{nullptr};
  std::shared_ptr<const InferenceModel> inference;  // what search steps
  std::vector<std::vector<int>> sources;
};

const Trained& trained(const Architecture& architecture) {
  static std::map<Architecture, Trained> cache;  // one training per architecture and program run
  auto [it, fresh] = cache.try_emplace(architecture);
  Trained& t = it->second;
  if (!fresh) return t;
  std::vector<int> lengths, target_lengths;
  for (int i = 0; i < 20; ++i) {
    lengths.push_back(1 + (i * 7) % 12);
    target_lengths.push_back(1 + (i * 5) % 13);
  }
  t.sources = test::random_sequences(lengths, 37, 5);
  const auto corpus = ParallelCorpus::from_sequences(t.sources, test::random_sequences(target_lengths, 41, 6));
  std::vector<std::size_t> all(t.sources.size());
  std::iota(all.begin(), all.end(), 0);
  const Batch batch = make_batch(corpus, all);
  at::manual_seed(17);
  ModelConfig config = test::tiny_config(std::get<0>(architecture), std::get<1>(architecture));
  config.decoder_hidden_size = 2 * config.encoder_hidden_size;  // D = 2H: dot attention is a plain dot product
  t.model = Seq2Seq(config);
  test::fit_briefly(t.model, batch);
  t.inference = t.model->for_inference(c10::Device(c10::kCPU));
  return t;
}

class RealModel : public ::testing::TestWithParam<Architecture> {
 protected:
  void SetUp() override {
    model_ = trained(GetParam()).inference;
    sentences_ = trained(GetParam()).sources;
  }

  std::vector<std::vector<Hypothesis>> search(const std::vector<std::vector<std::size_t>>& batches,
                                              const SearchOptions& options, bool greedy) {
    return search_in_batches(*model_, sentences_, batches, options, greedy);
  }
  std::vector<std::size_t> all() const { return iota(sentences_.size()); }

  std::shared_ptr<const InferenceModel> model_;
  std::vector<std::vector<int>> sentences_;
};

std::string architecture_name(const ::testing::TestParamInfo<Architecture>& info) {
  return name_of(std::get<0>(info.param)) + "_" + name_of(std::get<1>(info.param));
}

TEST_P(RealModel, BeamOneIsGreedyBitForBit) {
  const auto greedy = search({all()}, beam(1, 1), /*greedy=*/true);
  const auto beamed = search({all()}, beam(1, 1), /*greedy=*/false);
  for (std::size_t i = 0; i < sentences_.size(); ++i) {
    ASSERT_EQ(beamed[i].size(), 1u);
    EXPECT_EQ(beamed[i][0].tokens, greedy[i][0].tokens) << "sentence " << i;
    EXPECT_EQ(beamed[i][0].log_prob, greedy[i][0].log_prob) << "sentence " << i;
    EXPECT_EQ(beamed[i][0].finished, greedy[i][0].finished) << "sentence " << i;
  }
}

// Beam search is not guaranteed to beat greedy: the greedy prefix can fall out of the beam, and a
// live hypothesis only ends when its EOS ranks among the first k candidates. With D = 20 instead of
// 2H, 4 of these 160 searches lost to greedy (e.g. dot_luong sentence 10: the beam kept repeating a
// token with p ~ 0.15 a step whose EOS never ranked in the first k; greedy reached a state where EOS
// was the argmax: greedy -21.0 after 10 tokens, beam -49.6 after 26). With this model it never
// loses, and the test holds it to that; a failure here may be such a case, not a bug. Where both
// find the same tokens, they scored them in batches of different row counts, which does not move
// r at all (see the invariance test below).
TEST_P(RealModel, BeamFiveScoresAtLeastGreedy) {
  const auto greedy = search({all()}, beam(1, 1), /*greedy=*/true);
  const auto beamed = search({all()}, beam(5, 1), /*greedy=*/false);
  int better = 0;
  for (std::size_t i = 0; i < sentences_.size(); ++i) {
    const Hypothesis& g = greedy[i][0];
    const Hypothesis& b = beamed[i].at(0);
    if (g.finished) {
      EXPECT_TRUE(b.finished) << "sentence " << i;  // finished hypotheses rank first
    }
    if (b.tokens == g.tokens) {
      EXPECT_NEAR(b.score, g.score, 1e-5) << "sentence " << i;
    } else {
      EXPECT_GT(b.score, g.score) << "sentence " << i;
      ++better;
    }
  }
  RecordProperty("beam_better", better);
  EXPECT_GE(better, 10) << "of 20: the model should leave beam search something to find";
}

// Greedy ignores all but the length options; beam 5 with n-best 3, gnmt and coverage.
SearchOptions invariance_options() {
  SearchOptions options = beam(5, 3, LengthPenalty::gnmt);
  options.coverage_beta = 0.2;
  return options;
}

// The bitwise guarantee, at sizes that are not multiples of 16 (H = 12, D = 24, A = 14, vocabularies
// of 37 and 41): every product, elementwise function and reduction of inference computes a row
// alone (docs/search.md, "Batch invariance").
TEST_P(RealModel, BatchCompositionNeverChangesAResultBitForBit) {
  for (const bool greedy : {true, false}) expect_batch_invariant(*model_, sentences_, invariance_options(), greedy, 0.0);
}

INSTANTIATE_TEST_SUITE_P(All, RealModel,
                         ::testing::Combine(::testing::Values(AttentionType::bahdanau, AttentionType::dot,
                                                              AttentionType::general, AttentionType::concat),
                                            ::testing::Values(DecoderStyle::bahdanau, DecoderStyle::luong)),
                         architecture_name);

}  // namespace
}  // namespace nmt
