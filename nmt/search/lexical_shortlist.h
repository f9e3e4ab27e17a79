// A lexical shortlist: for each source piece, the target pieces likely in its translation, plus
// the most frequent target pieces. Decoding with one (nmt/search/shortlist_decoder.h) scores each
// sentence's output layer over its own list only. The file format and how a list is built:
// docs/search.md, "Lexical shortlist".
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <vector>

namespace nmt {

class Tokenizer;

/// The most target pieces a shortlist lists per source piece (builder and reader alike).
constexpr std::int64_t kMaxShortlistTopK = 10000;

class LexicalShortlist {
 public:
  /// table [source_vocab, top_k] int32: row s holds the target pieces for source piece s, best
  /// first, -1 where it has fewer (top_k <= kMaxShortlistTopK); frequent: the target pieces every
  /// sentence gets (kept sorted, without repeats; at most target_vocab). Ids are checked against
  /// the vocabulary sizes (ConfigError naming the bad one).
  LexicalShortlist(at::Tensor table, std::vector<std::int64_t> frequent, std::int64_t target_vocab,
                   std::string source_spm_sha256, std::string target_spm_sha256, std::string method);

  /// Reads a file that save() wrote: one-line DataError/IoError naming it when it is missing, not a
  /// shortlist, damaged (every entry is digested) or inconsistent.
  static LexicalShortlist load(const std::string& path);
  /// Writes the shortlist to `path` atomically (refusing an existing file unless `replace`).
  void save(const std::string& path, bool replace) const;

  /// ConfigError unless the shortlist was built with these subword models (`what` names the model
  /// file in the message).
  void check_tokenizers(const Tokenizer& source, const Tokenizer& target, const std::string& shortlist_path,
                        const std::string& what) const;

  /// The target pieces a sentence may produce: the frequent ones, the lists of its source pieces
  /// (ids outside the table's rows are skipped: EOS, padding), EOS and <unk>; increasing, unique.
  std::vector<std::int64_t> pieces_for(const std::int64_t* source, std::int64_t length) const;

  std::int64_t source_vocab() const { return table_.size(0); }
  std::int64_t target_vocab() const { return target_vocab_; }
  std::int64_t top_k() const { return table_.size(1); }
  const std::vector<std::int64_t>& frequent() const { return frequent_; }
  const at::Tensor& table() const { return table_; }
  const std::string& method() const { return method_; }

 private:
  at::Tensor table_;  // [source_vocab, top_k] int32, contiguous, on the CPU
  std::vector<std::int64_t> frequent_;
  std::int64_t target_vocab_;
  std::string source_spm_sha256_, target_spm_sha256_;  // of the subword models' bytes
  std::string method_;                                 // how the table was made ("dice")
};

}  // namespace nmt
