#include "nmt/data/tokenizer.h"

// SentencePiece is linked into libnmt and hidden there (nmt/CMakeLists.txt): what its headers make
// this file emit (the typeinfo of its classes) stays hidden too, out of libnmt's interface.
#pragma GCC visibility push(hidden)
#include <sentencepiece_model.pb.h>
#include <sentencepiece_processor.h>
#pragma GCC visibility pop

#include <cmath>
#include <random>

#include "nmt/core/error.h"
#include "nmt/core/file_io.h"

// SentencePiece's per-thread generator (declared in its internal util.h, whose include graph we keep
// out of our build).
namespace sentencepiece::random {
std::mt19937* GetRandomGenerator();
}  // namespace sentencepiece::random

namespace nmt {

struct __attribute__((visibility("hidden"))) Tokenizer::Impl {  // holds hidden SentencePiece types
  std::string name;
  std::string bytes;
  sentencepiece::SentencePieceProcessor processor;
};

namespace {

void check(const sentencepiece::util::Status& status, const std::string& name, const char* what) {
  if (!status.ok()) throw DataError("tokenizer " + name + ": " + what + ": " + status.ToString());
}

// A model trained without the toolkit's special ids would silently pad with a real word.
void check_special_ids(const sentencepiece::SentencePieceProcessor& sp, const std::string& name) {
  struct Expected { const char* what; int actual; int expected; };
  const Expected ids[] = {{"pad", sp.pad_id(), SpecialIds::kPad},
                          {"unk", sp.unk_id(), SpecialIds::kUnk},
                          {"bos", sp.bos_id(), SpecialIds::kBos},
                          {"eos", sp.eos_id(), SpecialIds::kEos}};
  for (const auto& id : ids) {
    if (id.actual != id.expected) {
      throw DataError("tokenizer " + name + ": " + id.what + " id is " + std::to_string(id.actual) +
                      ", the toolkit needs " + std::to_string(id.expected) +
                      " (train it with nmt-tokenizer train, or spm_train --pad_id=0 --unk_id=1"
                      " --bos_id=2 --eos_id=3)");
    }
  }
}

}  // namespace

void SamplingOptions::validate() const {
  if (!(alpha >= 0.0f && alpha <= 1.0f) || std::isnan(alpha)) {
    throw ConfigError("subword sampling alpha must be in [0, 1], got " + std::to_string(alpha));
  }
  if (nbest_size == 0 || nbest_size < -1 || nbest_size > 512) {  // 512: SentencePiece's limit
    throw ConfigError("subword sampling nbest size must be -1 or in [1, 512], got " + std::to_string(nbest_size));
  }
}

Tokenizer::Tokenizer(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
Tokenizer::~Tokenizer() = default;
Tokenizer::Tokenizer(const Tokenizer&) = default;
Tokenizer& Tokenizer::operator=(const Tokenizer&) = default;
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;

Tokenizer Tokenizer::load(const std::string& path) {
  std::string bytes;
  try {
    bytes = read_file(path);
  } catch (const IoError& e) {
    throw IoError(std::string("tokenizer model: ") + e.what());
  }
  return from_bytes(std::move(bytes), path);
}

Tokenizer Tokenizer::from_bytes(std::string bytes, const std::string& name) {
  auto impl = std::make_shared<Impl>();
  impl->name = name;
  impl->bytes = std::move(bytes);
  if (impl->bytes.empty()) throw DataError("tokenizer " + name + ": empty model");
  const auto status = impl->processor.LoadFromSerializedProto(impl->bytes);
  if (!status.ok()) {
    throw DataError("tokenizer " + name + ": not a SentencePiece model (" + status.ToString() + ")");
  }
  check_special_ids(impl->processor, name);
  return Tokenizer(std::move(impl));
}

std::vector<int> Tokenizer::encode(std::string_view text) const {
  std::vector<int> ids;
  check(impl_->processor.Encode(text, &ids), impl_->name, "encode");
  return ids;
}

std::vector<std::string> Tokenizer::encode_pieces(std::string_view text) const {
  std::vector<std::string> pieces;
  check(impl_->processor.Encode(text, &pieces), impl_->name, "encode");
  return pieces;
}

std::vector<std::vector<int>> Tokenizer::sample_encode(const std::vector<std::string>& texts,
                                                       const SamplingOptions& options,
                                                       std::uint32_t seed) const {
  options.validate();
  // SentencePiece samples with a thread_local std::mt19937. Reseeding this thread's generator makes
  // the result a function of (texts, options, seed) alone, whatever other threads do.
  sentencepiece::random::GetRandomGenerator()->seed(seed);
  std::vector<std::vector<int>> result(texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    check(impl_->processor.SampleEncode(texts[i], options.nbest_size, options.alpha, &result[i]), impl_->name,
          "sample");
  }
  return result;
}

std::string Tokenizer::decode(const std::vector<int>& ids) const {
  const int size = vocab_size();
  for (const int id : ids) {
    if (id < 0 || id >= size) {
      throw DataError("tokenizer " + impl_->name + ": cannot decode id " + std::to_string(id) +
                      " (vocabulary size " + std::to_string(size) + ")");
    }
  }
  std::string text;
  check(impl_->processor.Decode(ids, &text), impl_->name, "decode");
  return text;
}

std::string Tokenizer::decode_pieces(const std::vector<std::string>& pieces) const {
  std::string text;
  check(impl_->processor.Decode(pieces, &text), impl_->name, "decode");
  return text;
}

int Tokenizer::vocab_size() const { return impl_->processor.GetPieceSize(); }

std::string Tokenizer::id_to_piece(int id) const {
  if (id < 0 || id >= vocab_size()) {
    throw DataError("tokenizer " + impl_->name + ": id " + std::to_string(id) + " out of range");
  }
  return impl_->processor.IdToPiece(id);
}

int Tokenizer::piece_to_id(std::string_view piece) const { return impl_->processor.PieceToId(piece); }

std::string Tokenizer::model_type() const {
  switch (impl_->processor.model_proto().trainer_spec().model_type()) {
    case sentencepiece::TrainerSpec::UNIGRAM: return "unigram";
    case sentencepiece::TrainerSpec::BPE: return "bpe";
    case sentencepiece::TrainerSpec::WORD: return "word";
    case sentencepiece::TrainerSpec::CHAR: return "char";
  }
  return "unknown";
}

const std::string& Tokenizer::model_bytes() const { return impl_->bytes; }
const std::string& Tokenizer::name() const { return impl_->name; }

}  // namespace nmt
