// Statistics of a tokenized parallel corpus and of its batches, for reports and sanity checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "nmt/data/batching.h"
#include "nmt/data/parallel_corpus.h"

namespace nmt {

/// Lengths in subwords (without EOS) of one side of a corpus.
struct LengthStats {
  std::size_t tokens = 0;
  double mean = 0;
  std::size_t median = 0, p95 = 0, max = 0;
  double unk_rate = 0;  // share of tokens that are SpecialIds::kUnk
};

struct CorpusStats {
  CorpusCounts counts;
  LengthStats source, target;
  double mean_length_ratio = 0;   // mean of target length / source length
  std::size_t batches = 0;        // in epoch 0 under the batching options
  double mean_batch_pairs = 0;
  double padding_share = 0;       // padded positions / all positions of the source and target tensors
};

CorpusStats compute_corpus_stats(const ParallelCorpus& corpus, const BatchingOptions& batching);

/// A small aligned text table (for people).
std::string format_corpus_stats(const CorpusStats& stats);
/// The same numbers as one JSON object (for scripts).
std::string corpus_stats_json(const CorpusStats& stats);

}  // namespace nmt
