#include "nmt/search/translator.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <numeric>

#include "nmt/core/error.h"
#include "nmt/search/greedy_search.h"

namespace nmt {

void TranslateOptions::validate() const {
  search.validate();
  if (max_tokens < 1) throw ConfigError("translation max tokens must be >= 1, got " + std::to_string(max_tokens));
}

std::vector<std::string> translate_greedy(IncrementalDecoder& model, const Tokenizer& source_tokenizer,
                                          const Tokenizer& target_tokenizer, const std::vector<std::string>& sentences,
                                          const TranslateOptions& options, const c10::Device& device) {
  options.validate();
  std::vector<std::vector<int>> sources(sentences.size());
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < sentences.size(); ++i) {
    sources[i] = source_tokenizer.encode(sentences[i]);
    if (!sources[i].empty()) order.push_back(i);
  }
  // Longest first, so that batches hold similar lengths; ties keep input order (deterministic).
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return sources[a].size() > sources[b].size(); });
  std::vector<std::string> translations(sentences.size());
  for (std::size_t start = 0; start < order.size();) {
    const auto longest = static_cast<std::int64_t>(sources[order[start]].size()) + 1;
    std::size_t end = start + 1;
    while (end < order.size() && static_cast<std::int64_t>(end - start + 1) * longest <= options.max_tokens) ++end;
    const auto rows = static_cast<std::int64_t>(end - start);
    at::Tensor source = at::full({rows, longest}, SpecialIds::kPad, at::kLong);
    at::Tensor lengths = at::empty({rows}, at::kLong);
    for (std::int64_t r = 0; r < rows; ++r) {
      const auto& ids = sources[order[start + static_cast<std::size_t>(r)]];
      auto* row = source[r].data_ptr<std::int64_t>();
      std::copy(ids.begin(), ids.end(), row);
      row[ids.size()] = SpecialIds::kEos;
      lengths[r] = static_cast<std::int64_t>(ids.size()) + 1;
    }
    const auto hypotheses = greedy_search(model, source.to(device), lengths, options.search);
    for (std::int64_t r = 0; r < rows; ++r) {
      translations[order[start + static_cast<std::size_t>(r)]] =
          target_tokenizer.decode(hypotheses[static_cast<std::size_t>(r)].tokens);
    }
    start = end;
  }
  return translations;
}

}  // namespace nmt
