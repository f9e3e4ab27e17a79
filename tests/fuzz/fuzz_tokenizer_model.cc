// Fuzz target: loading a subword model from bytes (Tokenizer::from_bytes, what checkpoints and
// Tokenizer::load use) and using whatever loads.
//
// Input: the serialized SentencePiece model. Seeds: tiny models (unigram, BPE with byte fallback and
// user-defined symbols, a custom normalization table) written by make_seeds.cc. Every rejected model
// must be a DataError; a model that loads must then encode, sample and decode a few fixed texts,
// and map every id to a piece and back, without crashing or throwing anything but nmt::Error.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "nmt/core/error.h"
#include "nmt/data/tokenizer.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

const std::vector<std::string> kTexts = {
    "In the beginning God created the heavens and the earth.",
    "  Y vió Dios que la luz era buena.  ",
    "\xEF\xBC\xA1\xEF\xAC\x81 \xE2\x91\xA0\xE3\x80\x80" "A\xCC\x80 <tag> @@ \xE6\xBC\xA2\xE5\xAD\x97 \xF0\x9F\x98\x80",
    "",
    "\xFF\xFE invalid",
};

void use(const nmt::Tokenizer& tok) {
  const int vocab = tok.vocab_size();
  FUZZ_CHECK(vocab > nmt::SpecialIds::kEos, "a model with the special ids has at least 4 pieces");
  (void)tok.model_type();
  for (int id = 0; id < std::min(vocab, 2000); ++id) {
    const std::string piece = tok.id_to_piece(id);
    (void)tok.piece_to_id(piece);
  }
  for (const auto& text : kTexts) {
    const auto ids = tok.encode(text);
    for (const int id : ids) FUZZ_CHECK(id >= 0 && id < vocab, "encoded id " + std::to_string(id) + " in the vocabulary");
    (void)tok.decode(ids);
    (void)tok.decode_pieces(tok.encode_pieces(text));
    nmt::SamplingOptions sampling;
    sampling.nbest_size = 4;
    for (const auto& sample : tok.sample_encode({text}, sampling, 11)) (void)tok.decode(sample);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    const nmt::Tokenizer tok = nmt::Tokenizer::from_bytes(std::move(bytes), "fuzz");
    FUZZ_CHECK(tok.model_bytes().size() == size, "model_bytes() are the bytes loaded");
    try {
      use(tok);
    } catch (const nmt::Error&) {
      // A model that loads but then fails to encode or decode reports it as an nmt::Error: allowed.
    }
  } catch (const nmt::DataError&) {
  } catch (const std::exception& e) {
    FUZZ_UNEXPECTED("Tokenizer::from_bytes or using the model", e);
  }
  return 0;
}
