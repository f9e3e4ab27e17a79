// Training SentencePiece models with the toolkit's special ids (see SpecialIds).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "nmt/core/enum_names.h"
#include "nmt/data/tokenizer.h"

namespace nmt {

enum class SubwordModelType { unigram, bpe };
const EnumNames<SubwordModelType>& enum_names(SubwordModelType);  // unigram, bpe

struct TokenizerTrainOptions {
  std::vector<std::string> input_files;  // UTF-8 text, one sentence a line; empty lines are skipped
  std::string model_path;                // output model; the vocabulary goes to <stem>.vocab beside it
  SubwordModelType model_type = SubwordModelType::unigram;
  int vocab_size = 8000;                 // pieces, special ids included
  double character_coverage = 1.0;       // share of characters kept as pieces (0.9995 for CJK scripts)
  std::int64_t input_sentence_size = 0;  // 0: train on every sentence; else a random sample of this many
  int max_sentence_length = 4192;        // longer sentences (in bytes) are skipped by SentencePiece
  int num_threads = 2;                   // SentencePiece's trainer threads
  std::uint32_t seed = 1;                // seeds SentencePiece's random generator
  std::vector<std::string> user_defined_symbols;  // pieces never split (e.g. tags)

  void validate() const;  // throws ConfigError naming the option
};

/// Trains a model on the input files and writes it (and its .vocab) atomically.
/// Returns the trained tokenizer. Throws ConfigError, IoError or DataError ("FILE:LINE: ...").
Tokenizer train_tokenizer(const TokenizerTrainOptions& options);

/// Source and target tokenizers: one joint model trained on both sides (same object twice), or
/// two separate models.
struct TokenizerPair {
  Tokenizer source;
  Tokenizer target;
};

struct TokenizerPairOptions {
  bool joint = true;               // one model for both languages
  std::string source_model_path;   // the joint model's path when joint
  std::string target_model_path;   // unused when joint
  TokenizerTrainOptions common;    // all other settings; input_files and model_path are ignored
  std::vector<std::string> source_symbols;  // further user-defined symbols of the source (or joint) model: tags
};

TokenizerPair train_tokenizer_pair(const std::vector<std::string>& source_files,
                                   const std::vector<std::string>& target_files,
                                   const TokenizerPairOptions& options);

/// (vocabulary size, the size needed) when SentencePiece's trainer refused a vocabulary too small
/// for the text's characters, read from its message; nothing for any other message. The one
/// place that reads SentencePiece's English (tests/data/tokenizer_test.cc provokes the real one).
std::optional<std::pair<int, int>> vocabulary_shortfall(const std::string& sentencepiece_message);

}  // namespace nmt
