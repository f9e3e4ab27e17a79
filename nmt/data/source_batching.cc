#include "nmt/data/source_batching.h"

#include <ATen/ATen.h>

#include <algorithm>

#include "nmt/data/tokenizer.h"

namespace nmt {

std::vector<std::size_t> longest_first(const std::vector<std::int64_t>& lengths, bool keep_empty) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    if (keep_empty || lengths[i] > 0) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return lengths[a] > lengths[b]; });
  return order;
}

std::vector<std::pair<std::size_t, std::size_t>> plan_source_batches(const std::vector<std::size_t>& order,
                                                                     const std::vector<std::int64_t>& lengths,
                                                                     std::int64_t max_tokens,
                                                                     std::int64_t cost_per_row,
                                                                     std::int64_t max_sentences) {
  std::vector<std::pair<std::size_t, std::size_t>> batches;
  for (std::size_t start = 0; start < order.size();) {
    const std::int64_t longest = lengths[order[start]] + 1;  // EOS included
    std::size_t end = start + 1;
    while (end < order.size() && static_cast<std::int64_t>(end - start + 1) * longest * cost_per_row <= max_tokens &&
           (max_sentences <= 0 || static_cast<std::int64_t>(end - start) < max_sentences)) {
      ++end;
    }
    batches.emplace_back(start, end);
    start = end;
  }
  return batches;
}

SourceBatch make_source_batch(const std::vector<std::vector<int>>& ids, const std::vector<std::size_t>& order,
                              std::size_t start, std::size_t end) {
  const auto rows = static_cast<std::int64_t>(end - start);
  std::int64_t longest = 0;
  for (std::size_t i = start; i < end; ++i) longest = std::max<std::int64_t>(longest, static_cast<std::int64_t>(ids[order[i]].size()));
  // Rounded up, so that a sentence's softmax over source positions sums the same way in any batch.
  const std::int64_t width = (longest + 1 + kSourcePadMultiple - 1) / kSourcePadMultiple * kSourcePadMultiple;
  SourceBatch batch{at::full({rows, width}, SpecialIds::kPad, at::kLong), at::empty({rows}, at::kLong)};
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto& row_ids = ids[order[start + static_cast<std::size_t>(r)]];
    auto* row = batch.source[r].data_ptr<std::int64_t>();
    std::copy(row_ids.begin(), row_ids.end(), row);
    row[row_ids.size()] = SpecialIds::kEos;
    batch.lengths[r] = static_cast<std::int64_t>(row_ids.size()) + 1;
  }
  return batch;
}

}  // namespace nmt
