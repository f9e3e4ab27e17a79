// sparsemax and 1.5-entmax of one row in one pass (kernels.h, sparsemax_rows and entmax15_rows):
// the sort-based closed forms of nmt/model/attention_normaliser.cc, operation for operation in the
// same order and type, so that they give the same bits as the tensor forms. The tensor forms spend
// about twenty ATen operations (each a pass over [rows, src_len] and an allocation) on what is here
// one sort of the row's real scores and two loops; greedy decoding with 1.5-entmax lost a fifth of
// its speed to them (docs/benchmarks.md, the attention study).
#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "nmt/kernels/kernels.h"
#include "nmt/kernels/map_rows.h"

namespace nmt {
namespace {

// The row's real (finite) scores shifted by the best and divided by `divisor` (1 for sparsemax, 2
// for 1.5-entmax: exact), sorted decreasing, into `sorted`; `shifted` gets the same values in the
// row's order (-inf stays -inf). Returns how many are real.
template <typename T>
std::int64_t shifted_and_sorted(const T* in, std::int64_t size, T divisor, T* shifted, std::vector<T>& sorted) {
  T best = -std::numeric_limits<T>::infinity();
  for (std::int64_t j = 0; j < size; ++j) best = std::max(best, in[j]);
  sorted.clear();
  for (std::int64_t j = 0; j < size; ++j) {
    shifted[j] = (in[j] - best) / divisor;
    if (std::isfinite(shifted[j])) sorted.push_back(shifted[j]);
  }
  std::sort(sorted.begin(), sorted.end(), std::greater<T>());
  return static_cast<std::int64_t>(sorted.size());
}

// ATen's CPU cumsum keeps its running sum in double (at::acc_type<T, false>) and rounds each prefix
// to T: so do these.
template <typename T>
void running_sums(const std::vector<T>& values, std::vector<T>& sums, bool squared) {
  sums.resize(values.size());
  double sum = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    sum += squared ? static_cast<double>(values[i] * values[i]) : static_cast<double>(values[i]);
    sums[i] = static_cast<T>(sum);
  }
}

// tau = (sum_{j<=k} z_(j) - 1) / k for the largest k with 1 + k z_(k) > sum_{j<=k} z_(j);
// a_j = [z_j - tau]_+.
template <typename T>
void sparsemax_row(const T* in, T* out, std::int64_t size) {
  thread_local std::vector<T> sorted, sums;
  const std::int64_t real = shifted_and_sorted(in, size, T(1), out, sorted);
  if (real == 0) {  // no finite score: the tensor form's NaN (no row of a batch is all padding)
    std::fill(out, out + size, std::numeric_limits<T>::quiet_NaN());
    return;
  }
  running_sums(sorted, sums, false);
  std::int64_t k = 0;
  for (std::int64_t i = 0; i < real; ++i) k += static_cast<T>(i + 1) * sorted[i] + T(1) > sums[i];
  k = std::max<std::int64_t>(k, 1);
  const T tau = (sums[k - 1] - T(1)) / static_cast<T>(k);
  for (std::int64_t j = 0; j < size; ++j) out[j] = std::max(out[j] - tau, T(0));
}

// With x = z / 2 sorted, m_k and s_k = sum x_(j)^2 - k m_k^2 over x_(1..k), tau_k = m_k -
// sqrt((1 - s_k) / k); tau is tau_k for the largest k with tau_k <= x_(k); a_j = [x_j - tau]_+^2.
template <typename T>
void entmax15_row(const T* in, T* out, std::int64_t size) {
  thread_local std::vector<T> sorted, sums, squares;
  const std::int64_t real = shifted_and_sorted(in, size, T(2), out, sorted);
  if (real == 0) {
    std::fill(out, out + size, std::numeric_limits<T>::quiet_NaN());
    return;
  }
  running_sums(sorted, sums, false);
  running_sums(sorted, squares, true);
  std::int64_t k = 0;
  for (std::int64_t i = 0; i < real; ++i) {
    const T rank = static_cast<T>(i + 1);
    const T mean = sums[i] / rank;
    const T deviations = squares[i] - rank * mean * mean;
    const T tau_k = mean - std::sqrt(std::max((T(1) - deviations) / rank, T(0)));
    k += tau_k <= sorted[i];
  }
  k = std::max<std::int64_t>(k, 1);
  const T support = static_cast<T>(k);
  const T mean = sums[k - 1] / support;
  const T deviations = squares[k - 1] - support * mean * mean;
  const T tau = mean - std::sqrt((T(1) - deviations) / support);
  for (std::int64_t j = 0; j < size; ++j) {
    const T y = std::max(out[j] - tau, T(0));
    out[j] = y * y;
  }
}

void check_applies(const at::Tensor& scores, const char* name) {
  TORCH_CHECK(inference_kernels_apply(scores, at::Tensor()) && scores.dim() > 0, name,
              ": CPU float or double scores without autograd only, got ", scores.sizes(), " ",
              scores.scalar_type(), " on ", scores.device());
}

}  // namespace

at::Tensor sparsemax_rows(const at::Tensor& scores) {
  check_applies(scores, "sparsemax_rows");
  return kernel_rows::map_rows(scores,
                               [](const auto* in, auto* out, std::int64_t size) { sparsemax_row(in, out, size); });
}

at::Tensor entmax15_rows(const at::Tensor& scores) {
  check_applies(scores, "entmax15_rows");
  return kernel_rows::map_rows(scores,
                               [](const auto* in, auto* out, std::int64_t size) { entmax15_row(in, out, size); });
}

}  // namespace nmt
