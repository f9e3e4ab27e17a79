#include "nmt/data/corpus_stats.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <vector>

#include "nmt/data/tokenizer.h"

namespace nmt {
namespace {

template <typename SideFn>
LengthStats side_stats(const ParallelCorpus& corpus, SideFn side) {
  LengthStats stats;
  if (corpus.size() == 0) return stats;
  std::vector<std::size_t> lengths;
  lengths.reserve(corpus.size());
  std::size_t unk = 0;
  for (std::size_t i = 0; i < corpus.size(); ++i) {
    const TokenSpan tokens = side(i);
    lengths.push_back(tokens.size);
    stats.tokens += tokens.size;
    unk += static_cast<std::size_t>(std::count(tokens.begin(), tokens.end(), SpecialIds::kUnk));
  }
  std::sort(lengths.begin(), lengths.end());
  const auto at_quantile = [&](double q) {
    return lengths[std::min(lengths.size() - 1, static_cast<std::size_t>(q * static_cast<double>(lengths.size())))];
  };
  stats.mean = static_cast<double>(stats.tokens) / static_cast<double>(corpus.size());
  stats.median = at_quantile(0.5);
  stats.p95 = at_quantile(0.95);
  stats.max = lengths.back();
  stats.unk_rate = stats.tokens ? static_cast<double>(unk) / static_cast<double>(stats.tokens) : 0.0;
  return stats;
}

nlohmann::json side_json(const LengthStats& s) {
  return {{"tokens", s.tokens}, {"mean_length", s.mean}, {"median_length", s.median},
          {"p95_length", s.p95}, {"max_length", s.max}, {"unk_rate", s.unk_rate}};
}

}  // namespace

CorpusStats compute_corpus_stats(const ParallelCorpus& corpus, const BatchingOptions& batching) {
  CorpusStats stats;
  stats.counts = corpus.counts();
  stats.source = side_stats(corpus, [&](std::size_t i) { return corpus.source(i); });
  stats.target = side_stats(corpus, [&](std::size_t i) { return corpus.target(i); });
  if (corpus.size() == 0) return stats;
  double ratio_sum = 0;
  for (std::size_t i = 0; i < corpus.size(); ++i) {
    ratio_sum += static_cast<double>(corpus.target(i).size) / static_cast<double>(corpus.source(i).size);
  }
  stats.mean_length_ratio = ratio_sum / static_cast<double>(corpus.size());

  // Padding as the tensors hold it: per side, rows x padded length against the real tokens (+ EOS).
  const auto plan = plan_epoch(corpus, batching, 0);
  std::size_t real = 0, positions = 0;
  for (const auto& batch : plan) {
    std::size_t longest_source = 0, longest_target = 0;
    for (const auto i : batch) {
      longest_source = std::max(longest_source, corpus.source(i).size + 1);
      longest_target = std::max(longest_target, corpus.target(i).size + 1);
      real += corpus.source(i).size + corpus.target(i).size + 2;
    }
    positions += (longest_source + longest_target) * batch.size();
  }
  stats.batches = plan.size();
  stats.mean_batch_pairs = static_cast<double>(corpus.size()) / static_cast<double>(plan.size());
  stats.padding_share = positions ? 1.0 - static_cast<double>(real) / static_cast<double>(positions) : 0.0;
  return stats;
}

std::string format_corpus_stats(const CorpusStats& s) {
  std::string out;
  out += fmt::format("pairs read {:>10}   kept {:>10}   empty {:>6}   too long {:>6}   bad ratio {:>6}\n",
                     s.counts.lines, s.counts.kept, s.counts.empty, s.counts.too_long, s.counts.bad_ratio);
  out += fmt::format("{:<8} {:>12} {:>8} {:>8} {:>8} {:>8} {:>9}\n", "side", "subwords", "mean", "median",
                     "p95", "max", "unk %");
  for (const auto& [name, side] : {std::pair{"source", &s.source}, std::pair{"target", &s.target}}) {
    out += fmt::format("{:<8} {:>12} {:>8.1f} {:>8} {:>8} {:>8} {:>9.3f}\n", name, side->tokens, side->mean,
                       side->median, side->p95, side->max, 100.0 * side->unk_rate);
  }
  out += fmt::format("mean target/source length ratio {:.3f}\n", s.mean_length_ratio);
  out += fmt::format("batches per epoch {}   mean pairs per batch {:.1f}   padding {:.1f} %\n", s.batches,
                     s.mean_batch_pairs, 100.0 * s.padding_share);
  return out;
}

std::string corpus_stats_json(const CorpusStats& s) {
  const nlohmann::json json = {
      {"pairs_read", s.counts.lines}, {"pairs_kept", s.counts.kept}, {"dropped_empty", s.counts.empty},
      {"dropped_too_long", s.counts.too_long}, {"dropped_bad_ratio", s.counts.bad_ratio},
      {"source", side_json(s.source)}, {"target", side_json(s.target)},
      {"mean_length_ratio", s.mean_length_ratio}, {"batches", s.batches},
      {"mean_batch_pairs", s.mean_batch_pairs}, {"padding_share", s.padding_share}};
  return json.dump();
}

}  // namespace nmt
