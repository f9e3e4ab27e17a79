#include "nmt/search/top_candidates.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace nmt {
namespace {

// Every candidate scored and sorted: the definition top_of_rows must meet.
Ranked brute_force(const std::vector<float>& values, const std::vector<float>& offset, std::int64_t vocab,
                   std::int64_t count) {
  Ranked all;
  for (std::size_t j = 0; j < values.size(); ++j) {
    const float v = offset[j / static_cast<std::size_t>(vocab)] + values[j];
    if (!std::isnan(v)) all.emplace_back(v, static_cast<std::int64_t>(j));
  }
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  if (static_cast<std::int64_t>(all.size()) > count) all.resize(static_cast<std::size_t>(count));
  return all;
}

// Random log-probabilities with many exact ties (values from a small set), over rows whose width
// is not a multiple of the 128-value blocks the scan skips: the ranking equals a full sort,
// ties in index order, for counts from 1 to more than a row holds.
TEST(TopOfRows, EqualsAFullSortWithTiesInIndexOrder) {
  std::mt19937 random(7);
  std::uniform_int_distribution<int> level(0, 40);
  for (const std::int64_t vocab : {1, 5, 127, 128, 129, 700}) {
    for (const std::int64_t rows : {1, 3, 5}) {
      std::vector<float> values(static_cast<std::size_t>(rows * vocab)), offset(static_cast<std::size_t>(rows));
      for (float& v : values) v = -0.25f * static_cast<float>(level(random));
      for (float& r : offset) r = -0.5f * static_cast<float>(level(random) % 4);
      for (const std::int64_t count : {std::int64_t{1}, std::int64_t{2}, std::int64_t{10}, rows * vocab}) {
        const std::int64_t k = std::min(count, rows * vocab);
        EXPECT_EQ(top_of_rows(values.data(), offset.data(), rows, vocab, k), brute_force(values, offset, vocab, k))
            << "vocab " << vocab << ", rows " << rows << ", count " << k;
      }
    }
  }
}

TEST(TopOfRows, SkipsNaNAndKeepsMinusInfinityLast) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> values = {nan, -1.0f, -inf, nan, -2.0f, -inf};
  const std::vector<float> offset = {0.0f, -1.0f};
  const Ranked top = top_of_rows(values.data(), offset.data(), 2, 3, 4);
  EXPECT_EQ(top, (Ranked{{-1.0f, 1}, {-3.0f, 4}, {-inf, 2}, {-inf, 5}}));
  // A row of NaN alone ranks nothing.
  EXPECT_TRUE(top_of_rows(values.data(), offset.data(), 1, 1, 1).empty());
}

}  // namespace
}  // namespace nmt
