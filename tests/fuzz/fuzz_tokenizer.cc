// Fuzz target: applying a subword model (nmt/data/tokenizer.h) to arbitrary text.
//
// The model is what nmt-tokenizer trains (unigram, NFKC normalization, the toolkit's special ids),
// trained once per process on tests/data/toy.{es,en} (a fixed seed and one thread: the same model
// every time). Input: the text, any bytes. Checks, besides the absence of crashes:
//   - encode/encode_pieces/sample_encode/decode/decode_pieces never throw on any input and give
//     ids in the vocabulary that are never pad, bos or eos;
//   - ids and pieces agree (id_to_piece, piece_to_id) except for unknown pieces;
//   - for valid UTF-8 without unknown pieces: decoding the pieces or a sampled segmentation gives
//     the same text as decoding the ids, and encoding that text again gives the same ids;
//   - the input read as 16-bit ids decodes, or throws DataError exactly when an id is outside the
//     vocabulary.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "nmt/core/error.h"
#include "nmt/data/tokenizer.h"
#include "nmt/data/tokenizer_training.h"
#include "nmt/data/utf8.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

namespace fs = std::filesystem;

nmt::Tokenizer train() {
  const fs::path dir = fs::temp_directory_path() / ("nmt-fuzz-tokenizer-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  nmt::TokenizerTrainOptions options;
  options.input_files = {nmt::fuzz::fuzz_path("../data/toy.es"), nmt::fuzz::fuzz_path("../data/toy.en")};
  options.model_path = (dir / "toy.model").string();
  options.vocab_size = 200;
  options.num_threads = 1;
  options.seed = 1;
  nmt::Tokenizer tokenizer = nmt::train_tokenizer(options);
  std::error_code ec;
  fs::remove_all(dir, ec);
  return tokenizer;
}

const nmt::Tokenizer& tokenizer() {
  static const nmt::Tokenizer trained = train();
  return trained;
}

bool is_special(int id) {
  return id == nmt::SpecialIds::kPad || id == nmt::SpecialIds::kBos || id == nmt::SpecialIds::kEos;
}

void check_text(const nmt::Tokenizer& tok, std::string_view text) {
  const int vocab = tok.vocab_size();
  std::vector<int> ids;
  std::vector<std::string> pieces;
  std::vector<std::vector<int>> sampled;
  std::string decoded, decoded_pieces, decoded_sample;
  try {
    ids = tok.encode(text);
    pieces = tok.encode_pieces(text);
    nmt::SamplingOptions sampling;
    sampled = tok.sample_encode({std::string(text)}, sampling, 7);
    decoded = tok.decode(ids);
    decoded_pieces = tok.decode_pieces(pieces);
    decoded_sample = tok.decode(sampled.at(0));
  } catch (const std::exception& e) {
    FUZZ_UNEXPECTED("encoding or decoding text", e);
  }
  bool unknown = false;
  FUZZ_CHECK(ids.size() == pieces.size(), "as many ids as pieces");
  for (std::size_t i = 0; i < ids.size(); ++i) {
    FUZZ_CHECK(ids[i] >= 0 && ids[i] < vocab && !is_special(ids[i]), "id " + std::to_string(ids[i]));
    if (ids[i] == nmt::SpecialIds::kUnk) {
      unknown = true;
      continue;
    }
    FUZZ_CHECK(tok.id_to_piece(ids[i]) == pieces[i], "id_to_piece(id) is the piece");
    FUZZ_CHECK(tok.piece_to_id(pieces[i]) == ids[i], "piece_to_id(piece) is the id");
  }
  for (const int id : sampled[0]) {
    FUZZ_CHECK(id >= 0 && id < vocab && !is_special(id), "sampled id " + std::to_string(id));
    if (id == nmt::SpecialIds::kUnk) unknown = true;
  }
  if (unknown || nmt::find_invalid_utf8(text) != std::string_view::npos) return;
  FUZZ_CHECK(decoded_pieces == decoded, "pieces decode as the ids do");
  FUZZ_CHECK(decoded_sample == decoded, "a sampled segmentation decodes to the same text");
  FUZZ_CHECK(tok.encode(decoded) == ids, "encode(decode(encode(text))) == encode(text)");
}

void check_ids(const nmt::Tokenizer& tok, const std::uint8_t* data, std::size_t size) {
  std::vector<int> ids;
  bool in_range = true;
  for (std::size_t i = 0; i + 1 < size && ids.size() < 256; i += 2) {
    const int id = static_cast<std::int16_t>(data[i] | (data[i + 1] << 8));
    ids.push_back(id);
    in_range = in_range && id >= 0 && id < tok.vocab_size();
  }
  try {
    (void)tok.decode(ids);
    FUZZ_CHECK(in_range, "decode accepted an id outside the vocabulary");
  } catch (const nmt::DataError& e) {
    FUZZ_CHECK(!in_range, std::string("DataError decoding ids in the vocabulary: ") + e.what());
  } catch (const std::exception& e) {
    FUZZ_UNEXPECTED("decode(ids)", e);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const nmt::Tokenizer& tok = tokenizer();
  check_text(tok, nmt::fuzz::as_view(data, size));
  check_ids(tok, data, size);
  return 0;
}
