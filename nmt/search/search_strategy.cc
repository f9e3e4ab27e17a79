#include "nmt/search/search_strategy.h"

#include "nmt/search/beam_search.h"
#include "nmt/search/greedy_search.h"

namespace nmt {
namespace {

class Greedy final : public SearchStrategy {
 public:
  explicit Greedy(SearchOptions options) : options_(std::move(options)) {}
  std::vector<std::vector<Hypothesis>> search(const IncrementalDecoder& model, const at::Tensor& source,
                                              const at::Tensor& source_lengths) const override {
    std::vector<std::vector<Hypothesis>> results;
    for (Hypothesis& h : greedy_search(model, source, source_lengths, options_)) results.push_back({std::move(h)});
    return results;
  }

 private:
  SearchOptions options_;
};

class Beam final : public SearchStrategy {
 public:
  explicit Beam(SearchOptions options) : options_(std::move(options)) {}
  std::vector<std::vector<Hypothesis>> search(const IncrementalDecoder& model, const at::Tensor& source,
                                              const at::Tensor& source_lengths) const override {
    return beam_search(model, source, source_lengths, options_);
  }

 private:
  SearchOptions options_;
};

}  // namespace

std::unique_ptr<const SearchStrategy> SearchStrategy::make(const SearchOptions& options) {
  if (options.beam_size == 1) return std::make_unique<Greedy>(options);
  return std::make_unique<Beam>(options);
}

}  // namespace nmt
