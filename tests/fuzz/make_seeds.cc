// Writes the binary seeds of the fuzz corpora (docs/fuzzing.md): tiny SentencePiece models with the
// toolkit's special ids (corpus/tokenizer_model/, also the tokenizer of the text target) and tiny
// checkpoints (corpus/checkpoint/), in the current format and in format 1 (no checksums). Models use the identity normalization, without the 240 KB NFKC
// table that nmt-tokenizer's models carry (the tokenizer target trains one of those itself), so
// that the checkpoints stay a few KB.
//
// Usage: fuzz_make_seeds TESTS_FUZZ_DIR     (e.g. tests/fuzz; overwrites the seed files)
#include <sentencepiece_trainer.h>
#include <torch/serialize/input-archive.h>
#include <torch/serialize/output-archive.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

#include "nmt/core/file_io.h"
#include "nmt/data/tokenizer.h"
#include "nmt/model/checkpoint.h"

// SentencePiece's log threshold (declared in its internal common.h, which we keep out of the build).
namespace sentencepiece::logging {
void SetMinLogLevel(int v);
}  // namespace sentencepiece::logging

namespace {

namespace fs = std::filesystem;

// A few sentences in English and Spanish: enough for a few dozen pieces.
const std::vector<std::string> kSentences = {
    "In the beginning God created the heavens and the earth.",
    "The earth was formless and empty.",
    "God saw the light, and saw that it was good.",
    "En el principio crió Dios los cielos y la tierra.",
    "Y la tierra estaba desordenada y vacía.",
    "Y vió Dios que la luz era buena.",
    "Niño, año, canción: ¿qué? ¡sí!",
};

class Sentences : public sentencepiece::SentenceIterator {
 public:
  bool done() const override { return index_ >= kSentences.size(); }
  void Next() override { ++index_; }
  const std::string& value() const override { return kSentences[index_]; }
  sentencepiece::util::Status status() const override { return {}; }

 private:
  std::size_t index_ = 0;
};

std::string train(std::unordered_map<std::string, std::string> extra) {
  std::unordered_map<std::string, std::string> args = {
      {"model_type", "unigram"}, {"vocab_size", "60"},   {"character_coverage", "1.0"},
      {"pad_id", "0"},           {"unk_id", "1"},        {"bos_id", "2"},
      {"eos_id", "3"},           {"pad_piece", "<pad>"}, {"unk_piece", "<unk>"},
      {"bos_piece", "<s>"},      {"eos_piece", "</s>"},  {"hard_vocab_limit", "false"},
      {"normalization_rule_name", "identity"},           {"num_threads", "1"},
      {"seed_sentencepiece_size", "1000"}};
  for (auto& [key, value] : extra) args[key] = value;
  Sentences sentences;
  std::string bytes;
  const auto status = sentencepiece::SentencePieceTrainer::Train(args, &sentences, &bytes);
  if (!status.ok()) throw std::runtime_error("training failed: " + status.ToString());
  nmt::Tokenizer::from_bytes(bytes, "seed");  // the toolkit accepts it
  return bytes;
}

// The same checkpoint in format 1: no "digests" entry, so it loads unverified (with a warning) and
// the fuzzer's changes to its strings and tensors reach the config parser and the model's checks
// instead of stopping at a checksum.
void copy_entries(torch::serialize::InputArchive& in, torch::serialize::OutputArchive& out, bool top) {
  for (const auto& key : in.keys()) {
    if (top && (key == "digests" || key == "format_version")) continue;
    torch::serialize::InputArchive child_in;
    if (in.try_read(key, child_in)) {
      torch::serialize::OutputArchive child_out;
      copy_entries(child_in, child_out, false);
      out.write(key, child_out);
      continue;
    }
    at::Tensor tensor;
    if (in.try_read(key, tensor) || in.try_read(key, tensor, /*is_buffer=*/true)) {
      out.write(key, tensor, /*is_buffer=*/tensor.scalar_type() == at::kByte);  // the tokenizers are buffers
      continue;
    }
    c10::IValue value;
    if (in.try_read(key, value)) out.write(key, value);
  }
}

std::string format_1(const fs::path& checkpoint) {
  torch::serialize::InputArchive in;
  in.load_from(checkpoint.string(), at::kCPU);
  torch::serialize::OutputArchive out;
  out.write("format_version", c10::IValue(std::int64_t{1}));
  copy_entries(in, out, true);
  std::string bytes;
  out.save_to([&bytes](const void* data, std::size_t size) {
    bytes.append(static_cast<const char*>(data), size);
    return size;
  });
  return bytes;
}

void write(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  nmt::write_file_atomic(path.string(), bytes);
  std::printf("%s: %zu bytes\n", path.c_str(), bytes.size());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s TESTS_FUZZ_DIR\n", argv[0]);
    return 2;
  }
  const fs::path dir(argv[1]);
  sentencepiece::logging::SetMinLogLevel(1);  // warnings and errors only
  try {
    const fs::path models = dir / "corpus" / "tokenizer_model";
    const std::string unigram = train({});
    write(models / "seed-unigram", unigram);
    write(models / "seed-bpe-byte-fallback", train({{"model_type", "bpe"}, {"vocab_size", "320"}, {"byte_fallback", "true"},
                                                    {"user_defined_symbols", "<tag>,@@"}}));
    // A custom normalization table: a small precompiled charsmap (the trie SentencePiece reads).
    const fs::path tsv = fs::temp_directory_path() / "nmt-fuzz-rules.tsv";
    nmt::write_file_atomic(tsv.string(),
                           "FF21\t41\n"        // FULLWIDTH LATIN CAPITAL LETTER A -> A
                           "FB01\t66 69\n"     // LATIN SMALL LIGATURE FI -> f i
                           "2460\t31\n"        // CIRCLED DIGIT ONE -> 1
                           "3000\t20\n"        // IDEOGRAPHIC SPACE -> space
                           "41 300\tC0\n");    // A + COMBINING GRAVE -> À
    write(models / "seed-unigram-charsmap",
          train({{"normalization_rule_name", ""}, {"normalization_rule_tsv", tsv.string()}}));
    fs::remove(tsv);

    // Checkpoints: the smallest models that load, in two architectures.
    const nmt::Tokenizer tokenizer = nmt::Tokenizer::from_bytes(unigram, "seed");
    const fs::path checkpoints = dir / "corpus" / "checkpoint";
    fs::create_directories(checkpoints);
    for (const bool lean : {false, true}) {
      nmt::ModelConfig config;
      config.source_vocab_size = config.target_vocab_size = tokenizer.vocab_size();
      config.embedding_size = config.encoder_hidden_size = config.decoder_hidden_size = config.attention_size = 1;
      config.dropout = 0;
      if (lean) {
        config.encoder_layers = config.decoder_layers = 2;
        config.attention = nmt::AttentionType::dot;
        config.decoder_style = nmt::DecoderStyle::luong;
        config.bridge = nmt::BridgeType::zero;
        config.share_embeddings = config.tie_output_embedding = true;
      }
      nmt::Seq2Seq model(config);
      const fs::path path = checkpoints / (lean ? "seed-luong-dot-shared" : "seed-bahdanau");
      nmt::save_checkpoint(path.string(), model, tokenizer, tokenizer, lean ? "" : "[train]\nmax-steps = 1\n");
      std::printf("%s: %ju bytes\n", path.c_str(), static_cast<std::uintmax_t>(fs::file_size(path)));
      const fs::path old_format = path.string() + "-format1";
      write(old_format, format_1(path));
      nmt::load_checkpoint(old_format.string());  // it loads
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
