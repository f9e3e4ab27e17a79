// Which of the inference form's products run in int8 (kernels.h, "int8 products"): the search's
// products in four groups, so that each can be measured on its own (bench_translate --int8) and
// --precision int8 turns on the ones that pay for their BLEU (docs/search.md, "int8 decoding").
#pragma once

#include <string>

#include "nmt/kernels/kernels.h"

namespace nmt {

struct InferencePrecision {
  bool output = false;     // W_out r_t + b_out, per step (and a shortlist's rows of it)
  bool decoder = false;    // per step: W_hh s (every layer), W_ih of deeper layers, the input-feeding
                           //   block of W_ih,0, W_r's s_t block
  bool attention = false;  // per source position: the keys W_a h_j and the context blocks W_c h_j;
                           //   per step: the query's projection
  bool encoder = false;    // per source position: W_hh h of both directions, W_ih of deeper layers
  bool memory = false;     // not a product: the tables a step reads per source position (the keys of
                           //   dot and general scores, the context blocks W_c h_j) stored in int8,
                           //   one scale a position (kernels.h, "int8 positions")

  /// All float32 (float32), or the groups --precision int8 runs (int8).
  static InferencePrecision of(Precision precision);
  /// A comma-separated list of groups ("output,decoder"; "all"; "" or "none": float32 everywhere);
  /// ConfigError naming `option` on another word.
  static InferencePrecision parse(const std::string& groups, const std::string& option);
  /// The groups in int8, comma-separated ("none" when there are none).
  std::string describe() const;
  bool any() const { return output || decoder || attention || encoder || memory; }

  static Precision of_group(bool int8) { return int8 ? Precision::int8 : Precision::float32; }
};

}  // namespace nmt
