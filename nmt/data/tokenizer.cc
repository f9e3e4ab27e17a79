#include "nmt/data/tokenizer.h"

// SentencePiece is linked into libnmt and hidden there (nmt/CMakeLists.txt): what its headers make
// this file emit (the typeinfo of its classes) stays hidden too, out of libnmt's interface.
// <cstring> first, outside the hidden region: clang applies the pragma to the C functions that
// SentencePiece's headers would declare (memchr, ...), and a hidden undefined memchr cannot bind to
// libc's (libnmt then fails to link).
#include <cstring>
#pragma GCC visibility push(hidden)
#include <sentencepiece_model.pb.h>
#include <sentencepiece_processor.h>
#pragma GCC visibility pop

#include <cmath>
#include <cstdint>
#include <exception>
#include <random>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

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

// SentencePiece 0.1.97 trusts the normalization table a model carries (a NormalizerSpec's
// precompiled_charsmap: a Darts-clone double-array trie over input bytes whose leaves point into a
// block of NUL-terminated replacements) and reads outside it when the table is malformed: found by
// tests/fuzz (fuzz_tokenizer_model), upstream google/sentencepiece#1269. A model is input like any
// other file, so its table is checked before any text reaches it: every transition the trie can
// take on any byte stays inside the array, every replacement starts inside the block and ends at a
// NUL, and no input matches more rules at once than the 32 SentencePiece keeps room for. The unit
// layout is darts.h's (DoubleArrayUnit). Returns what is wrong, or an empty string.
std::string charsmap_problem(std::string_view blob) {
  if (blob.empty()) return "";  // no table: no normalization
  const auto word = [&](std::size_t at) {  // little-endian, as SentencePiece stores it
    std::uint32_t value = 0;
    for (int i = 3; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(blob[at + static_cast<std::size_t>(i)]);
    return value;
  };
  if (blob.size() < 4) return "shorter than its header";
  const std::size_t trie_bytes = word(0);
  if (trie_bytes == 0 || trie_bytes % 4 != 0 || trie_bytes > blob.size() - 4) return "bad trie size";
  std::vector<std::uint32_t> unit(trie_bytes / 4);
  for (std::size_t i = 0; i < unit.size(); ++i) unit[i] = word(4 + 4 * i);
  const auto offset = [](std::uint32_t u) -> std::size_t { return (u >> 10) << ((u & (1U << 9)) >> 6); };
  const auto label = [](std::uint32_t u) { return u & ((1U << 31) | 0xFF); };
  const auto has_leaf = [](std::uint32_t u) { return ((u >> 8) & 1) == 1; };
  const auto value = [](std::uint32_t u) -> std::size_t { return u & ((1U << 31) - 1); };
  const std::string_view replacements = blob.substr(4 + trie_bytes);
  const std::size_t last_nul = replacements.rfind('\0');
  constexpr int kMaxMatches = 32;  // Normalizer::kMaxTrieResultsSize

  // Every node, by the position of its block of children, with the most rules matched on a way to
  // it. Darts-clone shares common suffixes (a DAG, not a tree), so a node is visited again when a
  // way with more matches reaches it; a cycle through a rule exceeds the limit and ends the walk.
  std::vector<int> most_matches(unit.size(), -1);
  std::vector<std::pair<std::size_t, int>> pending = {{offset(unit[0]), 0}};
  while (!pending.empty()) {
    const auto [base, matches] = pending.back();
    pending.pop_back();
    if ((base | 0xFF) >= unit.size()) return "a transition leaves the trie";  // base ^ byte, for any byte
    if (matches <= most_matches[base]) continue;
    most_matches[base] = matches;
    const std::size_t block = base & ~std::size_t{0xFF};  // base ^ byte, byte = 0..255: this block
    for (std::size_t cell = block; cell < block + 256; ++cell) {
      const std::uint32_t child = unit[cell];
      if (label(child) != (cell ^ base)) continue;  // not a transition on byte cell ^ base
      const std::size_t next = cell ^ offset(child);
      int matched = matches;
      if (has_leaf(child)) {
        if (next >= unit.size()) return "a rule outside the trie";
        if (last_nul == std::string_view::npos || value(unit[next]) > last_nul) return "a replacement outside the table";
        if (++matched > kMaxMatches) return "more than 32 rules match one input";
      }
      pending.emplace_back(next, matched);
    }
  }
  return "";
}

// SentencePiece matches user-defined symbols with room for 64 matches at one position and reads past
// it when one symbol has more user-defined prefixes than that (a, aa, aaa, ...).
std::string user_symbols_problem(const sentencepiece::ModelProto& model) {
  std::set<std::string_view> symbols;
  for (const auto& piece : model.pieces()) {
    if (piece.type() == sentencepiece::ModelProto::SentencePiece::USER_DEFINED) symbols.insert(piece.piece());
  }
  for (const auto symbol : symbols) {
    int prefixes = 0;
    for (std::size_t length = 1; length <= symbol.size(); ++length) prefixes += symbols.count(symbol.substr(0, length));
    if (prefixes > 64) return "more than 64 user-defined symbols are prefixes of '" + std::string(symbol) + "'";
  }
  return "";
}

// What SentencePiece would read out of bounds on: see the two functions above.
void check_tables(const sentencepiece::ModelProto& model, const std::string& name) {
  std::string problem = charsmap_problem(model.normalizer_spec().precompiled_charsmap());
  if (problem.empty()) problem = charsmap_problem(model.denormalizer_spec().precompiled_charsmap());
  if (!problem.empty()) throw DataError("tokenizer " + name + ": damaged normalization table (" + problem + ")");
  problem = user_symbols_problem(model);
  if (!problem.empty()) throw DataError("tokenizer " + name + ": " + problem);
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
  sentencepiece::util::Status status;
  try {
    status = impl->processor.LoadFromSerializedProto(impl->bytes);
  } catch (const std::exception& e) {  // Darts-clone throws on some malformed user-defined symbols (tests/fuzz)
    throw DataError("tokenizer " + name + ": not a SentencePiece model (" + e.what() + ")");
  }
  if (!status.ok()) {
    throw DataError("tokenizer " + name + ": not a SentencePiece model (" + status.ToString() + ")");
  }
  check_special_ids(impl->processor, name);
  check_tables(impl->processor.model_proto(), name);
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

bool Tokenizer::is_user_defined(int id) const {
  const auto& pieces = impl_->processor.model_proto().pieces();
  return id >= 0 && id < pieces.size() && pieces.Get(id).type() == sentencepiece::ModelProto::SentencePiece::USER_DEFINED;
}

std::vector<std::string> Tokenizer::user_defined_pieces() const {
  std::vector<std::string> out;
  for (const auto& piece : impl_->processor.model_proto().pieces()) {
    if (piece.type() == sentencepiece::ModelProto::SentencePiece::USER_DEFINED) out.push_back(piece.piece());
  }
  return out;
}

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
