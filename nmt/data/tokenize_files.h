// Applying a subword model to a file, line by line: text to ids or pieces (optionally sampled),
// and back. What nmt-tokenizer encode/decode run.
#pragma once

#include <cstdint>
#include <string>

#include "nmt/data/tokenizer.h"

namespace nmt {

struct TokenizeFilesOptions {
  std::string model;                   // SentencePiece model file
  std::string input = "-", output = "-";  // "-": stdin / stdout; the output appears whole or not at all
  bool pieces = false;                 // pieces instead of ids
};

struct EncodeOptions {
  bool sample = false;       // sample a segmentation per line (subword regularisation)
  SamplingOptions sampling;
  std::uint32_t seed = 1;    // line k (1-based) samples with seed + k - 1
};

/// Each input line as ids (or pieces) separated by spaces. Errors name the file and line.
void encode_file(const TokenizeFilesOptions& files, const EncodeOptions& options = {});

/// Each input line of ids (or pieces) as text. A word that is not an id is a DataError naming the
/// file and line.
void decode_file(const TokenizeFilesOptions& files);

}  // namespace nmt
