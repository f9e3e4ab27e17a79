// nmt-tokenizer: train a SentencePiece model with the toolkit's special ids, encode, decode.
#include "apps/common/app_main.h"
#include "apps/common/option_table.h"
#include "nmt/data/tokenize_files.h"
#include "nmt/data/tokenizer_training.h"

namespace {

void add_io_options(CLI::App& command, nmt::TokenizeFilesOptions& io) {
  command.add_option("--model,-m", io.model, "SentencePiece model file")->required();
  command.add_option("--input,-i", io.input, "Input file, one sentence a line ('-': stdin)")->capture_default_str();
  command.add_option("--output,-o", io.output, "Output file ('-': stdout)")->capture_default_str();
  command.add_flag("--pieces", io.pieces, "Pieces instead of ids");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Train SentencePiece subword models and apply them (ids: pad 0, unk 1, bos 2, eos 3)."};
  nmt::app::add_common_options(app);
  app.require_subcommand(1);

  nmt::TokenizerTrainOptions train;
  auto* train_cmd = app.add_subcommand("train", "Train a model on text files");
  train_cmd->add_option("--input,-i", train.input_files, "Training text files")->required()->check(CLI::ExistingFile);
  train_cmd->add_option("--model,-m", train.model_path, "Output model (its .vocab is written beside it)")->required();
  nmt::app::add_enum_option(*train_cmd, "--type", train.model_type, "Subword model type");
  nmt::app::add_number_option(*train_cmd, "--vocab-size", train.vocab_size, "Vocabulary size")->capture_default_str();
  nmt::app::add_number_option(*train_cmd, "--character-coverage", train.character_coverage, "Share of characters covered")
      ->capture_default_str();
  nmt::app::add_number_option(*train_cmd, "--input-sentence-size", train.input_sentence_size,
                        "Train on a random sample of this many sentences (0: all)")->capture_default_str();
  nmt::app::add_number_option(*train_cmd, "--threads", train.num_threads, "Trainer threads")->capture_default_str();
  nmt::app::add_number_option(*train_cmd, "--seed", train.seed, "Random seed")->capture_default_str();
  train_cmd->add_option("--user-defined-symbols", train.user_defined_symbols, "Pieces never split");

  nmt::TokenizeFilesOptions encode_io;
  nmt::EncodeOptions encode;
  auto* encode_cmd = app.add_subcommand("encode", "Text to ids (or pieces)");
  add_io_options(*encode_cmd, encode_io);
  encode_cmd->add_flag("--sample", encode.sample, "Sample segmentations (subword regularisation)");
  nmt::app::add_number_option(*encode_cmd, "--alpha", encode.sampling.alpha, "Sampling smoothing (unigram) or dropout (BPE)")
      ->capture_default_str();
  nmt::app::add_number_option(*encode_cmd, "--nbest-size", encode.sampling.nbest_size, "Unigram: sample among the n best (-1: all)")
      ->capture_default_str();
  nmt::app::add_number_option(*encode_cmd, "--seed", encode.seed, "Sampling seed")->capture_default_str();

  nmt::TokenizeFilesOptions decode_io;
  auto* decode_cmd = app.add_subcommand("decode", "Ids (or pieces) to text");
  add_io_options(*decode_cmd, decode_io);

  return nmt::app::run(app, argc, argv, [&] {
    if (*train_cmd) {
      nmt::train_tokenizer(train);
    } else if (*encode_cmd) {
      nmt::encode_file(encode_io, encode);
    } else {
      nmt::decode_file(decode_io);
    }
  });
}
