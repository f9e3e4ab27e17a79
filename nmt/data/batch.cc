#include "nmt/data/batch.h"

#include <ATen/ATen.h>

#include <algorithm>

#include "nmt/core/error.h"
#include "nmt/data/tokenizer.h"

namespace nmt {

Batch Batch::to(const c10::Device& device) const {
  Batch moved = *this;
  for (at::Tensor* tensor : {&moved.source, &moved.source_mask, &moved.target_in, &moved.target_out,
                             &moved.target_lengths, &moved.target_mask}) {
    *tensor = tensor->to(device);
  }
  return moved;
}

Batch make_batch(const ParallelCorpus& corpus, const std::vector<std::size_t>& indices) {
  if (indices.empty()) throw DataError("make_batch: no sentence pairs");
  Batch batch;
  batch.indices = indices;
  for (const auto i : indices) {
    if (i >= corpus.size()) throw DataError("make_batch: index " + std::to_string(i) + " out of range");
  }
  std::stable_sort(batch.indices.begin(), batch.indices.end(), [&](std::size_t a, std::size_t b) {
    return corpus.source(a).size > corpus.source(b).size;
  });

  const auto rows = static_cast<std::int64_t>(indices.size());
  std::int64_t source_len = 0, target_len = 0;
  for (const auto i : batch.indices) {
    source_len = std::max<std::int64_t>(source_len, static_cast<std::int64_t>(corpus.source(i).size) + 1);
    target_len = std::max<std::int64_t>(target_len, static_cast<std::int64_t>(corpus.target(i).size) + 1);
  }
  batch.source = at::full({rows, source_len}, SpecialIds::kPad, at::kLong);
  batch.target_in = at::full({rows, target_len}, SpecialIds::kPad, at::kLong);
  batch.target_out = at::full({rows, target_len}, SpecialIds::kPad, at::kLong);
  batch.source_lengths = at::empty({rows}, at::kLong);
  batch.target_lengths = at::empty({rows}, at::kLong);
  auto* source = batch.source.data_ptr<std::int64_t>();
  auto* target_in = batch.target_in.data_ptr<std::int64_t>();
  auto* target_out = batch.target_out.data_ptr<std::int64_t>();
  auto* source_lengths = batch.source_lengths.data_ptr<std::int64_t>();
  auto* target_lengths = batch.target_lengths.data_ptr<std::int64_t>();

  for (std::int64_t row = 0; row < rows; ++row) {
    const TokenSpan x = corpus.source(batch.indices[row]);
    const TokenSpan y = corpus.target(batch.indices[row]);
    std::int64_t* src = source + row * source_len;
    std::copy(x.begin(), x.end(), src);
    src[x.size] = SpecialIds::kEos;
    source_lengths[row] = static_cast<std::int64_t>(x.size) + 1;

    std::int64_t* in = target_in + row * target_len;
    std::int64_t* out = target_out + row * target_len;
    in[0] = SpecialIds::kBos;
    std::copy(y.begin(), y.end(), in + 1);
    std::copy(y.begin(), y.end(), out);
    out[y.size] = SpecialIds::kEos;
    target_lengths[row] = static_cast<std::int64_t>(y.size) + 1;

    batch.source_tokens += static_cast<std::int64_t>(x.size) + 1;
    batch.target_tokens += static_cast<std::int64_t>(y.size) + 1;
  }
  // A position is real when its index is below the row's length.
  batch.source_mask = at::arange(source_len, at::kLong).unsqueeze(0) < batch.source_lengths.unsqueeze(1);
  batch.target_mask = at::arange(target_len, at::kLong).unsqueeze(0) < batch.target_lengths.unsqueeze(1);
  return batch;
}

std::int64_t count_target_tokens(const ParallelCorpus& corpus, const std::vector<std::size_t>& indices) {
  std::int64_t tokens = 0;
  for (std::size_t i : indices) tokens += static_cast<std::int64_t>(corpus.target(i).size) + 1;
  return tokens;
}

}  // namespace nmt
