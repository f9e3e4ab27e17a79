// The output layer's log-softmax, in place over each row (kernels.h).
#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>

#include <limits>
#include <vector>

#include "nmt/kernels/kernels.h"
#include "nmt/kernels/sentence_kernels.h"
#include "nmt/kernels/top_candidates.h"

namespace nmt {

at::Tensor log_softmax_last(at::Tensor logits) {
  if (!inference_kernels_apply(logits, at::Tensor()) || logits.dim() != 2 || !logits.is_contiguous()) {
    return logits.log_softmax(/*dim=*/-1);
  }
  const std::int64_t size = logits.size(1);
  AT_DISPATCH_FLOATING_TYPES(logits.scalar_type(), "log_softmax_last", [&] {
    scalar_t* x = logits.data_ptr<scalar_t>();
    at::parallel_for(0, logits.size(0), 1, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t r = begin; r < end; ++r) log_softmax_sentence(x + r * size, size);
    });
  });
  return logits;
}

bool best_of_log_softmax_applies(const at::Tensor& logits) {
  return logits.scalar_type() == at::kFloat && logits.dim() == 2 && inference_kernels_apply(logits, at::Tensor());
}

BestOfRows best_of_log_softmax(const at::Tensor& logits, const at::Tensor& offset) {
  TORCH_CHECK(best_of_log_softmax_applies(logits), "best_of_log_softmax: float logits [R, V] on the CPU, no autograd");
  const std::int64_t rows = logits.size(0), size = logits.size(1);
  TORCH_CHECK(offset.dim() == 1 && offset.size(0) == rows, "best_of_log_softmax: offset must be [R]");
  const at::Tensor x = logits.contiguous();
  const at::Tensor r = offset.to(at::kCPU, at::kFloat).contiguous();
  BestOfRows best{std::vector<float>(static_cast<std::size_t>(rows)),
                  std::vector<std::int64_t>(static_cast<std::size_t>(rows))};
  const float* values = x.data_ptr<float>();
  const float* offsets = r.data_ptr<float>();
  at::parallel_for(0, rows, 1, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      const auto at = static_cast<std::size_t>(i);
      best_of_log_softmax_sentence(values + i * size, size, offsets[i], best.scores[at], best.ids[at]);
    }
  });
  return best;
}

RowNormalisers log_softmax_normalisers(const at::Tensor& logits) {
  TORCH_CHECK(best_of_log_softmax_applies(logits), "log_softmax_normalisers: float logits [R, V] on the CPU, no autograd");
  const std::int64_t rows = logits.size(0), size = logits.size(1);
  const at::Tensor x = logits.contiguous();
  RowNormalisers out;
  out.blocks = (size + kRankingBlock - 1) / kRankingBlock;
  out.normalisers.resize(static_cast<std::size_t>(rows));
  out.block_maxima.resize(static_cast<std::size_t>(rows * out.blocks));
  const float* values = x.data_ptr<float>();
  at::parallel_for(0, rows, 1, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      out.normalisers[static_cast<std::size_t>(i)] = log_softmax_normaliser_sentence(
          values + i * size, size, out.block_maxima.data() + i * out.blocks);
    }
  });
  return out;
}

namespace {

// Row r's logits at its columns, normalised over them (log_softmax_sentence of that many values):
// what scatter_subsets writes at the columns' pieces and log_softmax_of_lists returns.
template <typename T>
void log_softmax_of_list(const T* logits_row, const std::vector<std::int64_t>& cols, T* out) {
  for (std::size_t c = 0; c < cols.size(); ++c) out[c] = logits_row[cols[c]];
  if (!cols.empty()) log_softmax_sentence(out, static_cast<std::int64_t>(cols.size()));
}

}  // namespace

std::vector<float> log_softmax_of_lists(const at::Tensor& logits,
                                        const std::vector<const std::vector<std::int64_t>*>& columns) {
  TORCH_CHECK(best_of_log_softmax_applies(logits) && static_cast<std::int64_t>(columns.size()) == logits.size(0),
              "log_softmax_of_lists: float logits [R, K] on the CPU and R column lists");
  const std::int64_t k = logits.size(1);
  const at::Tensor x = logits.contiguous();
  const float* in = x.data_ptr<float>();
  std::vector<std::size_t> start(columns.size() + 1, 0);
  for (std::size_t r = 0; r < columns.size(); ++r) start[r + 1] = start[r] + columns[r]->size();
  std::vector<float> values(start.back());
  at::parallel_for(0, logits.size(0), 1, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t r = begin; r < end; ++r) {
      const auto at = static_cast<std::size_t>(r);
      log_softmax_of_list(in + r * k, *columns[at], values.data() + start[at]);
    }
  });
  return values;
}

at::Tensor scatter_subsets(const at::Tensor& logits, const std::vector<const std::vector<std::int64_t>*>& columns,
                           const at::Tensor& pieces, std::int64_t vocab) {
  TORCH_CHECK(logits.dim() == 2 && pieces.dim() == 1 && logits.size(1) == pieces.size(0) &&
                  static_cast<std::int64_t>(columns.size()) == logits.size(0),
              "scatter_subsets: logits must be [R, K], pieces [K] and columns R lists");
  const std::int64_t rows = logits.size(0), k = logits.size(1);
  const double minus_infinity = -std::numeric_limits<double>::infinity();
  at::Tensor out = at::full({rows, vocab}, minus_infinity, logits.options());
  TORCH_CHECK(inference_kernels_apply(logits, at::Tensor()), "scatter_subsets: the inference kernels' case only");
  const at::Tensor x = logits.contiguous();
  const at::Tensor ids = pieces.to(at::kCPU).to(at::kLong).contiguous();
  const std::int64_t* piece = ids.data_ptr<std::int64_t>();
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "scatter_subsets", [&] {
    const scalar_t* in = x.data_ptr<scalar_t>();
    scalar_t* result = out.data_ptr<scalar_t>();
    at::parallel_for(0, rows, 1, [&](std::int64_t begin, std::int64_t end) {
      std::vector<scalar_t> row;
      for (std::int64_t r = begin; r < end; ++r) {
        const std::vector<std::int64_t>& cols = *columns[static_cast<std::size_t>(r)];
        row.resize(cols.size());
        log_softmax_of_list(in + r * k, cols, row.data());
        for (std::size_t i = 0; i < cols.size(); ++i) result[r * vocab + piece[cols[i]]] = row[i];
      }
    });
  });
  return out;
}

}  // namespace nmt
