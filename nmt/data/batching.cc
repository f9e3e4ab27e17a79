#include "nmt/data/batching.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <numeric>

#include "nmt/core/error.h"
#include "nmt/core/split_mix.h"

namespace nmt {
namespace {

// Shuffles runs of `k` consecutive batches, keeping each run's order; the n mod k batches left over
// (the longest, cut last) end the plan, so that steps of k batches from the epoch's start each take
// one run of neighbours in length.
std::vector<std::vector<std::size_t>> shuffle_runs(std::vector<std::vector<std::size_t>> batches, std::size_t k,
                                                   SplitMix64& rng) {
  std::vector<std::size_t> runs(batches.size() / k);
  std::iota(runs.begin(), runs.end(), 0);
  fisher_yates(runs, rng);
  std::vector<std::vector<std::size_t>> shuffled;
  shuffled.reserve(batches.size());
  for (const std::size_t run : runs) {
    for (std::size_t i = run * k; i < run * k + k; ++i) shuffled.push_back(std::move(batches[i]));
  }
  for (std::size_t i = runs.size() * k; i < batches.size(); ++i) shuffled.push_back(std::move(batches[i]));
  return shuffled;
}

}  // namespace

void BatchingOptions::validate() const {
  if (max_tokens < 1) throw ConfigError("max tokens must be >= 1, got " + std::to_string(max_tokens));
  if (max_sentences < 0) throw ConfigError("max sentences must be >= 0 (0: no limit), got " + std::to_string(max_sentences));
  if (sort_pool_size < 0) throw ConfigError("sort pool size must be >= 0 (0: whole epoch), got " + std::to_string(sort_pool_size));
  if (step_batches < 1) throw ConfigError("batches per step must be >= 1, got " + std::to_string(step_batches));
}

std::uint64_t BatchingOptions::digest() const {
  SplitMix64 mix(static_cast<std::uint64_t>(max_tokens));
  std::uint64_t hash = mix.next();
  for (const std::uint64_t value : {static_cast<std::uint64_t>(max_sentences),
                                    static_cast<std::uint64_t>(sort_pool_size),
                                    static_cast<std::uint64_t>(shuffle)}) {
    hash = SplitMix64(hash ^ value).next();
  }
  return hash;
}

std::int64_t pair_tokens(const ParallelCorpus& corpus, std::size_t index) {
  return static_cast<std::int64_t>(std::max(corpus.source(index).size, corpus.target(index).size)) + 1;
}

std::vector<std::vector<std::size_t>> plan_epoch(const ParallelCorpus& corpus,
                                                 const BatchingOptions& options, std::int64_t epoch) {
  options.validate();
  for (std::size_t i = 0; i < corpus.size(); ++i) {
    const std::int64_t tokens = pair_tokens(corpus, i);
    if (tokens > options.max_tokens) {
      throw ConfigError("max tokens " + std::to_string(options.max_tokens) +
                        " is smaller than the sentence pair on line " + std::to_string(corpus.line_number(i)) +
                        " of " + corpus.name() + " (" + std::to_string(tokens) +
                        " tokens with EOS): raise max tokens or lower the max length filter");
    }
  }
  std::vector<std::size_t> order(corpus.size());
  std::iota(order.begin(), order.end(), 0);
  SplitMix64 rng(options.seed * 0x2545F4914F6CDD1Dull + static_cast<std::uint64_t>(epoch));
  if (options.shuffle) fisher_yates(order, rng);

  std::vector<std::vector<std::size_t>> batches;
  const std::size_t pool = options.sort_pool_size > 0 ? static_cast<std::size_t>(options.sort_pool_size)
                                                      : std::max<std::size_t>(order.size(), 1);
  for (std::size_t start = 0; start < order.size(); start += pool) {
    const auto first = order.begin() + static_cast<std::ptrdiff_t>(start);
    const auto last = order.begin() + static_cast<std::ptrdiff_t>(std::min(start + pool, order.size()));
    // Bucketing on the budget's own measure, the longer side, then the source side. Stable, so
    // ties keep the shuffled order.
    std::stable_sort(first, last, [&](std::size_t a, std::size_t b) {
      const auto ca = pair_tokens(corpus, a), cb = pair_tokens(corpus, b);
      return ca != cb ? ca < cb : corpus.source(a).size < corpus.source(b).size;
    });
    std::vector<std::size_t> batch;
    std::size_t longest_source = 0, longest_target = 0;
    for (auto it = first; it != last; ++it) {
      const std::size_t source = std::max(longest_source, corpus.source(*it).size + 1);
      const std::size_t target = std::max(longest_target, corpus.target(*it).size + 1);
      const auto cost = static_cast<std::int64_t>((batch.size() + 1) * std::max(source, target));
      const bool full = cost > options.max_tokens ||
                        (options.max_sentences > 0 &&
                         static_cast<std::int64_t>(batch.size()) >= options.max_sentences);
      if (full && !batch.empty()) {
        batches.push_back(std::move(batch));
        batch.clear();
        longest_source = longest_target = 0;
      }
      batch.push_back(*it);
      longest_source = std::max(longest_source, corpus.source(*it).size + 1);
      longest_target = std::max(longest_target, corpus.target(*it).size + 1);
    }
    if (!batch.empty()) batches.push_back(std::move(batch));
  }
  if (options.shuffle) {
    if (options.step_batches > 1) {
      batches = shuffle_runs(std::move(batches), static_cast<std::size_t>(options.step_batches), rng);
    } else {
      fisher_yates(batches, rng);
    }
  }
  return batches;
}

std::string BatchPosition::to_json() const {
  return nlohmann::json{{"epoch", epoch},
                        {"batch", batch},
                        {"seed", seed},
                        {"options_digest", options_digest},
                        {"corpus_fingerprint", corpus_fingerprint},
                        {"step_batches", step_batches}}
      .dump();
}

BatchPosition BatchPosition::from_json(const std::string& json) {
  try {
    const auto parsed = nlohmann::json::parse(json);
    BatchPosition position;
    position.epoch = parsed.at("epoch").get<std::int64_t>();
    position.batch = parsed.at("batch").get<std::int64_t>();
    position.seed = parsed.at("seed").get<std::uint64_t>();
    position.options_digest = parsed.at("options_digest").get<std::uint64_t>();
    position.corpus_fingerprint = parsed.at("corpus_fingerprint").get<std::uint64_t>();
    position.step_batches = parsed.value("step_batches", std::int64_t{1});
    if (position.step_batches < 1) {
      throw DataError("malformed batch position: step_batches " + std::to_string(position.step_batches) + " (must be >= 1)");
    }
    return position;
  } catch (const nlohmann::json::exception& e) {
    throw DataError(std::string("malformed batch position: ") + e.what());
  }
}

bool BatchPosition::operator==(const BatchPosition& other) const {
  return epoch == other.epoch && batch == other.batch && seed == other.seed &&
         options_digest == other.options_digest && corpus_fingerprint == other.corpus_fingerprint &&
         step_batches == other.step_batches;
}

}  // namespace nmt
