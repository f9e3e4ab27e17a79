// A TorchScript program as a model for search: any archive that keeps the scripted-model contract
// of docs/checkpoints.md (methods encode and step, attributes for the vocabularies, the special ids
// and both SentencePiece models) is searched through IncrementalDecoder like the native model:
// beam search, n-best, penalties, attention output and batch invariance all apply. Every nmt
// checkpoint of format 3 keeps the contract; so can a model written in Python and saved with
// torch.jit.script(...).save(...) (nmt-translate --engine script).
#pragma once

#include <c10/core/Device.h>
#include <torch/csrc/jit/api/module.h>

#include <cstdint>
#include <memory>
#include <string>

#include "nmt/data/tokenizer.h"
#include "nmt/model/incremental_decoder.h"

namespace nmt {

/// Search's face of a scripted model. The methods it calls:
///   encode(src [B, S] int64, src_lengths [B] int64) -> List[Tensor], every tensor [B, ...]
///   step(state: List[Tensor], previous [B] int64) -> (log_probs [B, V], attention [B, S] or [B, 0], state)
/// Rows of the state are selected with index_select(0, rows) on every tensor.
class ScriptedDecoder : public IncrementalDecoder {
 public:
  /// `name` (the file) is named in errors about what the methods return.
  ScriptedDecoder(torch::jit::Module module, std::string name, std::int64_t target_vocab_size, bool has_attention);
  DecoderStatePtr encode(const at::Tensor& source, const at::Tensor& source_lengths) const override;
  StepOutput step(const DecoderState& state, const at::Tensor& previous_tokens) const override;
  std::int64_t target_vocab_size() const override { return target_vocab_size_; }
  bool has_attention() const override { return has_attention_; }

 private:
  mutable torch::jit::Module module_;  // run_method is not const; running it changes nothing
  std::string name_;
  std::int64_t target_vocab_size_;
  bool has_attention_;
};

struct ScriptedModel {
  std::unique_ptr<ScriptedDecoder> decoder;
  Tokenizer source_tokenizer;
  Tokenizer target_tokenizer;
};

/// Loads a TorchScript archive that keeps the contract onto `device`. An nmt checkpoint has its
/// digests verified (code included) and must be of format 3; any archive must have the methods,
/// the attributes (ints source_vocab_size, target_vocab_size, pad_id, unk_id, bos_id, eos_id equal
/// to the toolkit's special ids; uint8 vectors source_spm, target_spm; optional int
/// has_attention, default 1) and SentencePiece models of the vocabulary sizes. Each problem is a
/// one-line DataError or IoError naming the file.
ScriptedModel load_scripted_model(const std::string& path, const c10::Device& device);

}  // namespace nmt
