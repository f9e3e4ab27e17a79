// nmt::Tokenizer: a SentencePiece subword model (the real library; nothing re-implemented).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace nmt {

/// Ids that every subword model of the toolkit uses (set when training, checked when loading).
/// Tensors are padded with kPad; decoders start from kBos and stop at kEos.
struct SpecialIds {
  static constexpr int kPad = 0;  // "<pad>": padding in batches; never produced by the tokenizer
  static constexpr int kUnk = 1;  // "<unk>": pieces outside the vocabulary
  static constexpr int kBos = 2;  // "<s>": the decoder's first input
  static constexpr int kEos = 3;  // "</s>": ends every source and target sequence
};

/// Subword regularisation (Kudo 2018) for training: sample a segmentation instead of the best one.
/// Unigram models: sample from the `nbest_size` best (-1: from all) with smoothing `alpha`.
/// BPE models: BPE-dropout with merge-dropout probability `alpha` (nbest_size is ignored).
struct SamplingOptions {
  float alpha = 0.1f;   // in [0, 1]; unigram: smoothing (0: uniform); BPE: merge-dropout probability
  int nbest_size = -1;  // unigram only: -1 (all segmentations) or 1..512
  void validate() const;  // throws ConfigError
};

/// A loaded SentencePiece model. Copies are cheap and share the model; all methods are const and
/// safe to call from several threads.
class Tokenizer {
 public:
  /// Loads a model file (written by train_tokenizer or spm_train with the toolkit's special ids).
  /// Throws IoError or DataError naming the file.
  static Tokenizer load(const std::string& path);

  /// Loads a model from its serialized bytes (as embedded in checkpoints). `name` appears in errors.
  static Tokenizer from_bytes(std::string bytes, const std::string& name = "<memory>");

  std::vector<int> encode(std::string_view text) const;
  std::vector<std::string> encode_pieces(std::string_view text) const;

  /// Samples one segmentation per text. Deterministic in (texts, options, seed), also when several
  /// threads sample at once: it reseeds the calling thread's SentencePiece generator with `seed`.
  std::vector<std::vector<int>> sample_encode(const std::vector<std::string>& texts,
                                              const SamplingOptions& options, std::uint32_t seed) const;

  /// Ids to text. Special ids (pad, bos, eos) produce no text; unknown ids are an error.
  std::string decode(const std::vector<int>& ids) const;
  std::string decode_pieces(const std::vector<std::string>& pieces) const;

  int vocab_size() const;
  std::string id_to_piece(int id) const;
  /// The id of `piece`, or SpecialIds::kUnk when the vocabulary has no such piece.
  int piece_to_id(std::string_view piece) const;
  /// Whether `id` is a user-defined symbol: a piece SentencePiece never splits (tags).
  bool is_user_defined(int id) const;
  /// The user-defined symbols, in id order.
  std::vector<std::string> user_defined_pieces() const;
  /// "unigram" or "bpe" (the others SentencePiece knows: "word", "char").
  std::string model_type() const;

  /// The serialized model, byte for byte what load() read: what checkpoints embed.
  const std::string& model_bytes() const;
  /// The file it was loaded from, or the name given to from_bytes().
  const std::string& name() const;

  ~Tokenizer();
  Tokenizer(const Tokenizer&);
  Tokenizer& operator=(const Tokenizer&);
  Tokenizer(Tokenizer&&) noexcept;
  Tokenizer& operator=(Tokenizer&&) noexcept;

 private:
  struct Impl;
  explicit Tokenizer(std::shared_ptr<const Impl> impl);
  std::shared_ptr<const Impl> impl_;
};

}  // namespace nmt
