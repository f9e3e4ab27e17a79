// Options and results shared by the search strategies.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace nmt {

struct SearchOptions {
  double max_length_a = 2.0;       // at most a * n + b target tokens for n source subwords
  std::int64_t max_length_b = 10;
  std::int64_t min_length = 0;     // EOS is not allowed before this many tokens
  bool keep_attention = false;     // return each hypothesis' attention matrix
  void validate() const;           // throws ConfigError
  std::int64_t max_length(std::int64_t source_length) const;
};

struct Hypothesis {
  std::vector<int> tokens;  // target subword ids, without EOS
  double score = 0;         // sum of log-probabilities of the tokens and the final EOS (if reached)
  bool finished = false;    // ended with EOS (false: stopped at the length limit)
  at::Tensor attention;     // [steps, src_len] on the CPU when requested: one row per token (+ EOS)
};

}  // namespace nmt
