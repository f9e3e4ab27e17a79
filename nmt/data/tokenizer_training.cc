#include "nmt/data/tokenizer_training.h"

// SentencePiece is linked into libnmt and hidden there (nmt/CMakeLists.txt): what its headers make
// this file emit (the typeinfo of its classes) stays hidden too, out of libnmt's interface.
// <cstring> first, outside the hidden region: clang applies the pragma to the C functions that
// SentencePiece's headers would declare (memchr, ...), and a hidden undefined memchr cannot bind to
// libc's (libnmt then fails to link).
#include <cstring>
#pragma GCC visibility push(hidden)
#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>
#pragma GCC visibility pop

#include <filesystem>
#include <memory>
#include <regex>
#include <sstream>
#include <unordered_map>

#include "nmt/core/error.h"
#include "nmt/core/log.h"
#include "nmt/core/file_io.h"
#include "nmt/data/text_file.h"

// Declared in SentencePiece's internal common.h, whose include graph (absl copies, config.h) we
// keep out of our build; this is the only internal function we use.
namespace sentencepiece::logging {
void SetMinLogLevel(int v);
}  // namespace sentencepiece::logging

namespace nmt {
namespace {

// Feeds SentencePiece's trainer from our reader, so that training data gets the same UTF-8 checks
// and FILE:LINE errors as the corpus.
class FileSentenceIterator : public sentencepiece::SentenceIterator {
 public:
  explicit FileSentenceIterator(std::vector<std::string> files) : files_(std::move(files)) { advance(); }

  bool done() const override { return done_; }
  void Next() override { advance(); }
  const std::string& value() const override { return line_; }
  sentencepiece::util::Status status() const override { return {}; }  // default: OK

  std::size_t sentences() const { return sentences_; }

 private:
  void advance() {
    while (true) {
      if (!reader_) {
        if (next_file_ == files_.size()) {
          done_ = true;
          return;
        }
        reader_ = std::make_unique<TextLineReader>(files_[next_file_++]);
      }
      while (reader_->next(line_)) {
        if (line_.find_first_not_of(" \t") == std::string::npos) continue;  // blank line
        ++sentences_;
        return;
      }
      reader_.reset();
    }
  }

  std::vector<std::string> files_;
  std::size_t next_file_ = 0;
  std::unique_ptr<TextLineReader> reader_;
  std::string line_;
  bool done_ = false;
  std::size_t sentences_ = 0;
};

std::string vocab_path_for(const std::string& model_path) {
  return std::filesystem::path(model_path).replace_extension(".vocab").string();
}

// The .vocab file SentencePiece writes beside its models: "piece<TAB>score" a line, for reading.
std::string vocab_text(const sentencepiece::SentencePieceProcessor& sp) {
  std::ostringstream out;
  for (int id = 0; id < sp.GetPieceSize(); ++id) out << sp.IdToPiece(id) << '\t' << sp.GetScore(id) << '\n';
  return out.str();
}

}  // namespace

const EnumNames<SubwordModelType>& enum_names(SubwordModelType) {
  static const EnumNames<SubwordModelType> names("subword model type",
                                                 {{SubwordModelType::unigram, "unigram"}, {SubwordModelType::bpe, "bpe"}});
  return names;
}

void TokenizerTrainOptions::validate() const {
  if (input_files.empty()) throw ConfigError("tokenizer training: no input files");
  if (model_path.empty()) throw ConfigError("tokenizer training: no model path");
  if (std::filesystem::path(model_path).extension() == ".vocab") {
    throw ConfigError("tokenizer training: model path " + model_path + " ends in .vocab, the vocabulary's own name");
  }
  if (vocab_size < 8) {
    throw ConfigError("tokenizer training: vocab size must be >= 8, got " + std::to_string(vocab_size));
  }
  if (!(character_coverage > 0.0 && character_coverage <= 1.0)) {
    throw ConfigError("tokenizer training: character coverage must be in (0, 1], got " +
                      std::to_string(character_coverage));
  }
  if (input_sentence_size < 0 || (input_sentence_size > 0 && input_sentence_size <= 100)) {
    // SentencePiece's own lower bound for sampling.
    throw ConfigError("tokenizer training: input sentence size must be 0 (all sentences) or above 100, got " +
                      std::to_string(input_sentence_size));
  }
  if (max_sentence_length < 1) throw ConfigError("tokenizer training: max sentence length must be >= 1");
  if (num_threads < 1) throw ConfigError("tokenizer training: threads must be >= 1");
}

std::optional<std::pair<int, int>> vocabulary_shortfall(const std::string& sentencepiece_message) {
  // "Vocabulary size is smaller than required_chars. 20 vs 75. Increase vocab_size or decrease
  // character_coverage with --character_coverage option." names options we do not have.
  static const std::regex too_small(R"(smaller than required_chars\. (\d+) vs (\d+))");
  std::smatch match;
  if (!std::regex_search(sentencepiece_message, match, too_small)) return std::nullopt;
  return std::pair<int, int>{std::stoi(match[1].str()), std::stoi(match[2].str())};
}

Tokenizer train_tokenizer(const TokenizerTrainOptions& options) {
  options.validate();
  for (const auto& file : options.input_files) TextLineReader check_readable(file);

  // SentencePiece logs its progress at INFO to stderr; show it only when debugging.
  sentencepiece::logging::SetMinLogLevel(log().should_log(spdlog::level::debug) ? 0 : 1);
  sentencepiece::SetRandomGeneratorSeed(options.seed == static_cast<std::uint32_t>(-1) ? 0u : options.seed);

  const std::unordered_map<std::string, std::string> args = {
      {"model_type", name_of(options.model_type)},
      {"vocab_size", std::to_string(options.vocab_size)},
      {"character_coverage", std::to_string(options.character_coverage)},
      {"input_sentence_size", std::to_string(options.input_sentence_size)},
      {"shuffle_input_sentence", "true"},
      {"max_sentence_length", std::to_string(options.max_sentence_length)},
      {"num_threads", std::to_string(options.num_threads)},
      {"pad_id", std::to_string(SpecialIds::kPad)},
      {"unk_id", std::to_string(SpecialIds::kUnk)},
      {"bos_id", std::to_string(SpecialIds::kBos)},
      {"eos_id", std::to_string(SpecialIds::kEos)},
      {"pad_piece", "<pad>"},
      {"unk_piece", "<unk>"},
      {"bos_piece", "<s>"},
      {"eos_piece", "</s>"},
      // Whole-vocabulary training on the given data: a small corpus must not fail with
      // "vocab_size too high"; SentencePiece then reports the size it could reach.
      {"hard_vocab_limit", "false"},
  };
  std::unordered_map<std::string, std::string> all_args = args;
  if (!options.user_defined_symbols.empty()) {
    std::string symbols;
    for (const auto& symbol : options.user_defined_symbols) symbols += (symbols.empty() ? "" : ",") + symbol;
    all_args["user_defined_symbols"] = symbols;
  }

  FileSentenceIterator sentences(options.input_files);
  std::string model_bytes;
  const auto status = sentencepiece::SentencePieceTrainer::Train(all_args, &sentences, &model_bytes);
  const std::string inputs = options.input_files.front() + (options.input_files.size() > 1 ? " and others" : "");
  if (!status.ok()) {
    const std::string message = status.error_message();
    if (const auto shortfall = vocabulary_shortfall(message)) {
      throw ConfigError("tokenizer training on " + inputs + ": a vocabulary of " + std::to_string(shortfall->first) +
                        " pieces is too small for the text's characters and the special pieces: use at least " +
                        std::to_string(shortfall->second) + " (or a lower character coverage)");
    }
    throw DataError("tokenizer training on " + inputs + " failed: " + message);
  }

  Tokenizer tokenizer = Tokenizer::from_bytes(model_bytes, options.model_path);
  sentencepiece::SentencePieceProcessor processor;
  if (!processor.LoadFromSerializedProto(model_bytes).ok()) {
    throw DataError("tokenizer training produced an unreadable model");
  }
  write_file_atomic(options.model_path, model_bytes);
  write_file_atomic(vocab_path_for(options.model_path), vocab_text(processor));
  log().info("trained {} tokenizer {} ({} pieces) on {} sentences", tokenizer.model_type(),
               options.model_path, tokenizer.vocab_size(), sentences.sentences());
  if (tokenizer.vocab_size() < options.vocab_size) {
    log().warn("tokenizer {} has {} pieces, fewer than the {} asked: {} is too small a text for more", options.model_path,
               tokenizer.vocab_size(), options.vocab_size, inputs);
  }
  return tokenizer;
}

TokenizerPair train_tokenizer_pair(const std::vector<std::string>& source_files,
                                   const std::vector<std::string>& target_files,
                                   const TokenizerPairOptions& options) {
  TokenizerTrainOptions train = options.common;
  const std::vector<std::string> target_symbols = train.user_defined_symbols;
  train.user_defined_symbols.insert(train.user_defined_symbols.end(), options.source_symbols.begin(),
                                    options.source_symbols.end());
  if (options.joint) {
    train.input_files = source_files;
    train.input_files.insert(train.input_files.end(), target_files.begin(), target_files.end());
    train.model_path = options.source_model_path;
    Tokenizer joint = train_tokenizer(train);
    return {joint, joint};
  }
  if (options.target_model_path.empty()) throw ConfigError("separate tokenizers need a target model path");
  if (options.target_model_path == options.source_model_path) {
    throw ConfigError("separate tokenizers need two different model paths, got " +
                      options.source_model_path + " twice");
  }
  train.input_files = source_files;
  train.model_path = options.source_model_path;
  Tokenizer source = train_tokenizer(train);
  train.input_files = target_files;
  train.model_path = options.target_model_path;
  train.user_defined_symbols = target_symbols;
  Tokenizer target = train_tokenizer(train);
  return {source, target};
}

}  // namespace nmt
