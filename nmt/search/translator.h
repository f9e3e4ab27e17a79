// Translating text: tokenize, batch by length, search, restore the input order, detokenize.
#pragma once

#include <c10/core/Device.h>

#include <string>
#include <vector>

#include "nmt/data/tokenizer.h"
#include "nmt/model/decoder_state.h"
#include "nmt/search/search_options.h"

namespace nmt {

struct TranslateOptions {
  SearchOptions search;
  std::int64_t max_tokens = 4000;  // source positions per batch, padding included
  void validate() const;           // throws ConfigError
};

/// Greedy translations of `sentences`, in input order; an empty (or blank) line gives an empty one.
std::vector<std::string> translate_greedy(IncrementalDecoder& model, const Tokenizer& source_tokenizer,
                                          const Tokenizer& target_tokenizer, const std::vector<std::string>& sentences,
                                          const TranslateOptions& options, const c10::Device& device);

}  // namespace nmt
