// The segmentations of the source that an ensemble's members read besides the translator's own:
// members whose source subword model is not the first model's (docs/search.md, "Ensembles").
// The ensemble owns them (EnsembleDecoder::source_views); the Translator segments each batch's
// sentences with them, so that search and the step interface never see them.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "nmt/data/tokenizer.h"

namespace nmt {

/// View 0 is the translator's segmentation (the ids encode() is given); view v in 1..size() is
/// that of tokenizer(v).
class SourceViews {
 public:
  SourceViews() = default;
  explicit SourceViews(std::vector<Tokenizer> tokenizers) : tokenizers_(std::move(tokenizers)) {}
  /// The number of further views (0: every member reads the translator's segmentation).
  std::size_t size() const { return tokenizers_.size(); }
  /// The subword model of view `view`, 1 <= view <= size().
  const Tokenizer& tokenizer(std::size_t view) const { return tokenizers_.at(view - 1); }

 private:
  std::vector<Tokenizer> tokenizers_;
};

/// One batch in the further views: sources[v - 1] [batch, src_len_v] int64 (x_1 .. x_n EOS, padded)
/// and lengths[v - 1] [batch] int64 on the CPU, as encode() takes them, rows in the order of the
/// batch's view-0 ids.
struct SourceViewBatch {
  std::vector<at::Tensor> sources, lengths;
};

}  // namespace nmt
