#include "nmt/data/corpus_mixture.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "nmt/core/error.h"
#include "nmt/core/split_mix.h"

namespace nmt {

std::vector<std::size_t> mixture_quotas(const std::vector<MixtureCorpus>& corpora) {
  if (corpora.empty()) throw ConfigError("a corpus mixture needs at least one corpus");
  std::size_t total = 0;
  double weights = 0;
  for (std::size_t s = 0; s < corpora.size(); ++s) {
    if (corpora[s].pairs == 0) throw ConfigError("corpus " + std::to_string(s + 1) + " of the mixture has no pairs");
    if (!(corpora[s].weight > 0) || !std::isfinite(corpora[s].weight)) {
      throw ConfigError("corpus " + std::to_string(s + 1) + " of the mixture: weight must be a number > 0");
    }
    total += corpora[s].pairs;
    weights += corpora[s].weight;
  }
  // Largest remainder: floors first, then one more each for the largest fractional parts.
  std::vector<std::size_t> quotas(corpora.size());
  std::vector<double> fractions(corpora.size());
  std::size_t given = 0;
  for (std::size_t s = 0; s < corpora.size(); ++s) {
    const double exact = static_cast<double>(total) * (corpora[s].weight / weights);
    quotas[s] = std::min(total, static_cast<std::size_t>(std::floor(exact)));
    fractions[s] = exact - std::floor(exact);
    given += quotas[s];
  }
  std::vector<std::size_t> order(corpora.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return fractions[a] > fractions[b]; });
  // Floors sum to at most the total (one above it at worst, from rounding): even it out.
  for (std::size_t i = 0; given < total; i = (i + 1) % order.size(), ++given) ++quotas[order[i]];
  for (auto it = order.rbegin(); given > total && it != order.rend(); ++it) {
    if (quotas[*it] > 0) --quotas[*it], --given;
  }
  return quotas;
}

std::vector<std::size_t> mixture_epoch(const std::vector<MixtureCorpus>& corpora, std::uint64_t seed,
                                       std::int64_t epoch) {
  const std::vector<std::size_t> quotas = mixture_quotas(corpora);
  std::vector<std::size_t> out;
  out.reserve(std::accumulate(quotas.begin(), quotas.end(), std::size_t{0}));
  std::size_t first = 0;
  for (std::size_t s = 0; s < corpora.size(); ++s) {
    const std::size_t pairs = corpora[s].pairs;
    const std::size_t whole = quotas[s] / pairs, rest = quotas[s] % pairs;
    std::vector<std::size_t> counts(pairs, whole);
    if (rest > 0) {
      // A partial Fisher-Yates: the first `rest` places of a seeded shuffle of 0..pairs-1.
      SplitMix64 rng(seed * 0x9E3779B97F4A7C15ull ^ (static_cast<std::uint64_t>(epoch) << 20) ^ (s + 1) * 0xD1B54A32D192ED03ull);
      std::vector<std::size_t> order(pairs);
      std::iota(order.begin(), order.end(), 0);
      for (std::size_t i = 0; i < rest; ++i) {
        std::swap(order[i], order[i + rng.below(pairs - i)]);
        ++counts[order[i]];
      }
    }
    for (std::size_t i = 0; i < pairs; ++i) out.insert(out.end(), counts[i], first + i);
    first += pairs;
  }
  return out;
}

}  // namespace nmt
