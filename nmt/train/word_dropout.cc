#include "nmt/train/word_dropout.h"

#include <ATen/ATen.h>

#include <algorithm>

#include "nmt/core/error.h"
#include "nmt/data/tokenizer.h"

namespace nmt {
namespace {

// SplitMix64's finaliser (Steele, Lea & Flood 2014): a well-mixed 64-bit function of its input.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A uniform draw in [0, 1) from the 53 high bits of a hash.
double uniform(std::uint64_t hash) { return static_cast<double>(hash >> 11) * 0x1.0p-53; }

// ids [rows, len] int64 on the CPU, a copy with the real tokens dropped; `side` keeps the source's
// and the target's draws apart.
at::Tensor drop(const at::Tensor& ids, const Batch& batch, double rate, std::uint64_t key, std::uint64_t side,
                const std::vector<int>& keep) {
  at::Tensor out = ids.contiguous().clone();
  auto* data = out.data_ptr<std::int64_t>();
  const std::int64_t rows = out.size(0), len = out.size(1);
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::uint64_t sentence = mix(key ^ mix(batch.indices[static_cast<std::size_t>(r)] * 2 + side));
    for (std::int64_t j = 0; j < len; ++j) {
      std::int64_t& id = data[r * len + j];
      if (id == SpecialIds::kPad || id == SpecialIds::kBos || id == SpecialIds::kEos) continue;
      if (std::find(keep.begin(), keep.end(), id) != keep.end()) continue;
      if (uniform(mix(sentence + static_cast<std::uint64_t>(j))) < rate) id = SpecialIds::kUnk;
    }
  }
  return out;
}

}  // namespace

Batch drop_words(const Batch& batch, double rate, std::uint64_t seed, std::int64_t epoch,
                 const std::vector<int>& keep) {
  if (!(rate >= 0 && rate < 1)) throw Error("drop_words: rate must be in [0, 1) (a bug of the caller)");
  if (rate == 0) return batch;
  if (!batch.source.device().is_cpu() || !batch.target_in.device().is_cpu()) {
    throw Error("drop_words: the batch must be on the CPU (a bug of the caller)");
  }
  const std::uint64_t key = mix(mix(seed) ^ static_cast<std::uint64_t>(epoch));
  Batch out = batch;
  out.source = drop(batch.source, batch, rate, key, 0, keep);
  out.target_in = drop(batch.target_in, batch, rate, key, 1, keep);
  return out;
}

}  // namespace nmt
