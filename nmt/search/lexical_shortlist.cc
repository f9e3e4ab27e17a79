#include "nmt/search/lexical_shortlist.h"

#include <ATen/ATen.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/serialize/output-archive.h>

#include <algorithm>
#include <utility>

#include "nmt/core/error.h"
#include "nmt/core/torch_error.h"
#include "nmt/core/file_io.h"
#include "nmt/core/sha256.h"
#include "nmt/core/verified_archive.h"
#include "nmt/data/tokenizer.h"

namespace nmt {
namespace {

constexpr std::int64_t kShortlistFormat = 1;
constexpr const char* kKind = "nmt lexical shortlist";
constexpr std::int64_t kMaxVocabulary = std::int64_t{1} << 24;  // far beyond any subword vocabulary

}  // namespace

LexicalShortlist::LexicalShortlist(at::Tensor table, std::vector<std::int64_t> frequent, std::int64_t target_vocab,
                                   std::string source_spm_sha256, std::string target_spm_sha256, std::string method)
    : frequent_(std::move(frequent)),
      target_vocab_(target_vocab),
      source_spm_sha256_(std::move(source_spm_sha256)),
      target_spm_sha256_(std::move(target_spm_sha256)),
      method_(std::move(method)) {
  if (!table.defined() || table.dim() != 2 || table.scalar_type() != at::kInt || table.size(0) < 1 ||
      table.size(1) > kMaxShortlistTopK) {
    throw ConfigError("a shortlist's table must be [source pieces, top-k] int32 with top-k <= " +
                      std::to_string(kMaxShortlistTopK));
  }
  if (target_vocab_ < SpecialIds::kEos + 1 || target_vocab_ > kMaxVocabulary || table.size(0) > kMaxVocabulary) {
    throw ConfigError("a shortlist's vocabularies must have " + std::to_string(SpecialIds::kEos + 1) + " to " +
                      std::to_string(kMaxVocabulary) + " pieces, got " + std::to_string(table.size(0)) + " source and " +
                      std::to_string(target_vocab_) + " target pieces");
  }
  table_ = table.to(at::kCPU).contiguous();
  const at::Tensor used = table_.ge(0);
  if (table_.lt(-1).any().item<bool>() || (used.any().item<bool>() && table_.max().item<int>() >= target_vocab_)) {
    throw ConfigError("a shortlist's table holds a piece outside the target vocabulary of " +
                      std::to_string(target_vocab_));
  }
  if (static_cast<std::int64_t>(frequent_.size()) > target_vocab_) {
    throw ConfigError("a shortlist lists " + std::to_string(frequent_.size()) + " frequent pieces, more than its " +
                      std::to_string(target_vocab_) + " target pieces");
  }
  for (const std::int64_t id : frequent_) {
    if (id < 0 || id >= target_vocab_) {
      throw ConfigError("a shortlist's frequent piece " + std::to_string(id) + " is outside the target vocabulary of " +
                        std::to_string(target_vocab_));
    }
  }
  std::sort(frequent_.begin(), frequent_.end());
  frequent_.erase(std::unique(frequent_.begin(), frequent_.end()), frequent_.end());
}

void LexicalShortlist::save(const std::string& path, bool replace) const {
  refuse_existing_output(path, replace);
  torch::serialize::OutputArchive archive;
  archive.write("format_version", c10::IValue(kShortlistFormat));
  archive.write("kind", c10::IValue(std::string(kKind)));
  archive.write("method", c10::IValue(method_));
  archive.write("source_spm_sha256", c10::IValue(source_spm_sha256_));
  archive.write("target_spm_sha256", c10::IValue(target_spm_sha256_));
  archive.write("target_vocab", c10::IValue(target_vocab_));
  archive.write("table", table_, /*is_buffer=*/true);
  archive.write("frequent", at::tensor(frequent_, at::kLong), /*is_buffer=*/true);
  write_file_atomic(path, serialize_with_digests(archive));
}

LexicalShortlist LexicalShortlist::load(const std::string& path) {
  const std::string bytes = read_archive_file(path, "shortlist");
  return read_archive_reporting_damage("shortlist", path, [&] {
    // The values only (no TorchScript compiled): the zip and every tensor's extent are checked
    // before anything is read, so a damaged file is an error, never a crash.
    const torch::jit::Module archive = read_archive_values(bytes, path, "shortlist");
    if (!archive.hasattr("kind") || !archive.attr("kind").isString() || archive.attr("kind").toStringRef() != kKind) {
      throw DataError("shortlist " + path + " is not an nmt lexical shortlist (nmt-checkpoint shortlist writes them)");
    }
    if (!verify_module_digests(archive, bytes, path, "shortlist", /*with_code=*/false)) {
      throw DataError("shortlist " + path + " is damaged: its table of checksums is missing");
    }
    const ArchiveReader reader(archive, "shortlist", path);
    const std::int64_t format = reader.integer("format_version");
    if (format != kShortlistFormat) {
      reader.fail("format version " + std::to_string(format) + ", this nmt reads " + std::to_string(kShortlistFormat));
    }
    at::Tensor table, frequent;
    if (!reader.try_tensor("table", table)) reader.fail("no 'table' entry");
    if (!reader.try_tensor("frequent", frequent) || frequent.dim() != 1 || frequent.scalar_type() != at::kLong) {
      reader.fail("no 'frequent' entry of int64 ids");
    }
    frequent = frequent.contiguous();
    std::vector<std::int64_t> ids(frequent.data_ptr<std::int64_t>(), frequent.data_ptr<std::int64_t>() + frequent.numel());
    try {
      return LexicalShortlist(table, std::move(ids), reader.integer("target_vocab"), reader.string("source_spm_sha256"),
                              reader.string("target_spm_sha256"), reader.string("method"));
    } catch (const ConfigError& e) {
      reader.fail(first_line(e));
    }
  });
}

void LexicalShortlist::check_tokenizers(const Tokenizer& source, const Tokenizer& target,
                                        const std::string& shortlist_path, const std::string& what) const {
  const auto differs = [&](const Tokenizer& tokenizer, const std::string& digest, const char* side) {
    if (sha256_hex(tokenizer.model_bytes()) == digest) return;
    throw ConfigError("shortlist " + shortlist_path + " was built for another " + side + " subword model than " + what +
                      "'s (" + std::to_string(tokenizer.vocab_size()) + " pieces): build one for it with " +
                      "nmt-checkpoint shortlist");
  };
  differs(source, source_spm_sha256_, "source");
  differs(target, target_spm_sha256_, "target");
  if (source.vocab_size() != source_vocab() || target.vocab_size() != target_vocab_) {
    throw ConfigError("shortlist " + shortlist_path + " has " + std::to_string(source_vocab()) + " source and " +
                      std::to_string(target_vocab_) + " target pieces, " + what + " " +
                      std::to_string(source.vocab_size()) + " and " + std::to_string(target.vocab_size()));
  }
}

std::vector<std::int64_t> LexicalShortlist::pieces_for(const std::int64_t* source, std::int64_t length) const {
  // Marks in a table of the target vocabulary, read in order: no list longer than the vocabulary
  // is ever held, whatever the sentence's length and top_k.
  std::vector<char> listed(static_cast<std::size_t>(target_vocab_), 0);
  for (const std::int64_t id : frequent_) listed[static_cast<std::size_t>(id)] = 1;
  listed[SpecialIds::kUnk] = listed[SpecialIds::kEos] = 1;
  const std::int64_t k = top_k();
  const int* table = table_.data_ptr<int>();
  for (std::int64_t i = 0; i < length; ++i) {
    const std::int64_t s = source[i];
    if (s < 0 || s >= source_vocab()) continue;
    for (std::int64_t j = 0; j < k && table[s * k + j] >= 0; ++j) listed[static_cast<std::size_t>(table[s * k + j])] = 1;
  }
  std::vector<std::int64_t> pieces;
  for (std::int64_t id = 0; id < target_vocab_; ++id) {
    if (listed[static_cast<std::size_t>(id)] != 0) pieces.push_back(id);
  }
  return pieces;
}

}  // namespace nmt
