// Word dropout (train.word-dropout; Gal & Ghahramani 2016, the strongest single setting of Sennrich
// & Zhang 2019 for small data): whole tokens of the source and of the decoder's input replaced by
// <unk> at a rate, so that the model learns not to lean on any one word.
#pragma once

#include <cstdint>
#include <vector>

#include "nmt/data/batch.h"

namespace nmt {

/// `batch` with every real token of its source and of its decoder input (not EOS, BOS or padding;
/// never the labels, target_out) replaced by <unk> with probability `rate`, 0 <= rate < 1. The
/// draws depend on (seed, epoch, the sentence's corpus index, the side, the position) alone: a
/// sentence gets the same ones in any batch, on any rank and after a resume. The batch's tensors
/// are on the CPU; the ones returned are new (the input's are not changed). rate 0: `batch` itself.
/// The ids in `keep` (the corpora's tags) are never replaced: a tag tells the model what to do.
Batch drop_words(const Batch& batch, double rate, std::uint64_t seed, std::int64_t epoch,
                 const std::vector<int>& keep = {});

}  // namespace nmt
