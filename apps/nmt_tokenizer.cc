// nmt-tokenizer: train a SentencePiece model with the toolkit's special ids, encode, decode.
#include <spdlog/spdlog.h>

#include <sstream>

#include "apps/common/app_main.h"
#include "nmt/core/text_output.h"
#include "nmt/core/error.h"
#include "nmt/data/text_file.h"
#include "nmt/data/tokenizer.h"
#include "nmt/data/tokenizer_training.h"

namespace {

struct IoOptions {
  std::string model, input = "-", output = "-";
  bool pieces = false;
};

void add_io_options(CLI::App& command, IoOptions& io) {
  command.add_option("--model,-m", io.model, "SentencePiece model file")->required();
  command.add_option("--input,-i", io.input, "Input file, one sentence a line ('-': stdin)")->capture_default_str();
  command.add_option("--output,-o", io.output, "Output file ('-': stdout)")->capture_default_str();
  command.add_flag("--pieces", io.pieces, "Pieces instead of ids");
}

// Applies `line_fn` to every input line; empty lines stay empty.
template <typename LineFn>
void map_lines(const IoOptions& io, LineFn line_fn) {
  nmt::TextLineReader reader(io.input);
  nmt::TextOutput output(io.output);
  std::string line;
  while (reader.next(line)) {
    std::string result;
    try {
      result = line_fn(line);
    } catch (const nmt::Error& e) {
      throw nmt::DataError(reader.path() + ":" + std::to_string(reader.line_number()) + ": " + e.what());
    }
    output.stream() << result << '\n';
  }
  output.finish();
}

template <typename T>
std::string join(const std::vector<T>& items) {
  std::ostringstream out;
  for (std::size_t i = 0; i < items.size(); ++i) out << (i ? " " : "") << items[i];
  return out.str();
}

std::vector<std::string> split(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Train SentencePiece subword models and apply them (ids: pad 0, unk 1, bos 2, eos 3)."};
  nmt::app::add_common_options(app);
  app.require_subcommand(1);

  nmt::TokenizerTrainOptions train;
  std::string model_type = "unigram";
  auto* train_cmd = app.add_subcommand("train", "Train a model on text files");
  train_cmd->add_option("--input,-i", train.input_files, "Training text files")->required()->check(CLI::ExistingFile);
  train_cmd->add_option("--model,-m", train.model_path, "Output model (its .vocab is written beside it)")->required();
  train_cmd->add_option("--type", model_type, "unigram or bpe")->capture_default_str();
  train_cmd->add_option("--vocab-size", train.vocab_size, "Vocabulary size")->capture_default_str();
  train_cmd->add_option("--character-coverage", train.character_coverage, "Share of characters covered")
      ->capture_default_str();
  train_cmd->add_option("--input-sentence-size", train.input_sentence_size,
                        "Train on a random sample of this many sentences (0: all)")->capture_default_str();
  train_cmd->add_option("--threads", train.num_threads, "Trainer threads")->capture_default_str();
  train_cmd->add_option("--seed", train.seed, "Random seed")->capture_default_str();
  train_cmd->add_option("--user-defined-symbols", train.user_defined_symbols, "Pieces never split");

  IoOptions encode_io;
  nmt::SamplingOptions sampling;
  bool sample = false;
  std::uint32_t sample_seed = 1;
  auto* encode_cmd = app.add_subcommand("encode", "Text to ids (or pieces)");
  add_io_options(*encode_cmd, encode_io);
  encode_cmd->add_flag("--sample", sample, "Sample segmentations (subword regularisation)");
  encode_cmd->add_option("--alpha", sampling.alpha, "Sampling smoothing (unigram) or dropout (BPE)")->capture_default_str();
  encode_cmd->add_option("--nbest-size", sampling.nbest_size, "Unigram: sample among the n best (-1: all)")
      ->capture_default_str();
  encode_cmd->add_option("--seed", sample_seed, "Sampling seed")->capture_default_str();

  IoOptions decode_io;
  auto* decode_cmd = app.add_subcommand("decode", "Ids (or pieces) to text");
  add_io_options(*decode_cmd, decode_io);

  return nmt::app::run(app, argc, argv, [&] {
    if (*train_cmd) {
      train.model_type = nmt::parse_subword_model_type(model_type);
      nmt::train_tokenizer(train);
    } else if (*encode_cmd) {
      const auto tokenizer = nmt::Tokenizer::load(encode_io.model);
      if (sample) sampling.validate();
      std::uint32_t line_seed = sample_seed;
      map_lines(encode_io, [&](const std::string& line) {
        if (sample) {
          const auto ids = tokenizer.sample_encode({line}, sampling, line_seed++).front();
          if (!encode_io.pieces) return join(ids);
          std::vector<std::string> pieces;
          for (const int id : ids) pieces.push_back(tokenizer.id_to_piece(id));
          return join(pieces);
        }
        return encode_io.pieces ? join(tokenizer.encode_pieces(line)) : join(tokenizer.encode(line));
      });
    } else {
      const auto tokenizer = nmt::Tokenizer::load(decode_io.model);
      map_lines(decode_io, [&](const std::string& line) {
        const auto words = split(line);
        if (decode_io.pieces) return tokenizer.decode_pieces(words);
        std::vector<int> ids;
        for (const auto& word : words) {
          std::size_t used = 0;
          int id = -1;
          try {
            id = std::stoi(word, &used);
          } catch (const std::exception&) {
            used = 0;
          }
          if (used != word.size()) throw nmt::DataError("'" + word + "' is not a token id");
          ids.push_back(id);
        }
        return tokenizer.decode(ids);
      });
    }
  });
}
