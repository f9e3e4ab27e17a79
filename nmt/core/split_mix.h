// SplitMix64 (Steele, Lea & Flood 2014): a small generator specified bit for bit, so that a seed
// gives the same batches and the same corpus mixture with every compiler and standard library
// (std::shuffle and std::uniform_int_distribution are not specified that far).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace nmt {

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, bound) without modulo bias (rejection sampling); bound > 0.
  std::uint64_t below(std::uint64_t bound) {
    const std::uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    std::uint64_t value;
    do value = next(); while (value >= limit);
    return value % bound;
  }

 private:
  std::uint64_t state_;
};

/// Shuffles `items` in place, the same way for a given generator state everywhere.
template <typename T>
void fisher_yates(std::vector<T>& items, SplitMix64& rng) {
  for (std::size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[rng.below(i)]);
}

}  // namespace nmt
