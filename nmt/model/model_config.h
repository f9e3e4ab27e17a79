// ModelConfig: every size and choice that defines a model's architecture. Stored as JSON in each
// checkpoint; see docs/model.md for what each field means in the equations.
#pragma once

#include <cstdint>
#include <string>

#include "nmt/core/enum_names.h"

namespace nmt {

/// none: the plain encoder-decoder (Cho et al. 2014), which reads one fixed context, the encoder's
/// final states, at every step (docs/model.md, "Without attention").
enum class AttentionType { bahdanau, dot, general, concat, none };
enum class DecoderStyle { bahdanau, luong };
enum class BridgeType { zero, linear };
/// How scores become weights (nmt/model/attention_normaliser.h): softmax, or sparsemax and
/// 1.5-entmax, which give exact zeros, or hard: one position (trained by straight-through Gumbel-softmax).
enum class AttentionNormaliser { softmax, sparsemax, entmax15, hard };
/// Where attention looks (nmt/model/attention_window.h): every source position, or Luong et al.'s
/// local attention over a window [p_t - W, p_t + W] around p_t = t (local-m) or a predicted p_t
/// (local-p), or local-m's centre moved by a learnt offset of at most W (local-p-offset).
enum class AttentionWindow { global, local_m, local_p, local_p_offset };

const EnumNames<AttentionType>& enum_names(AttentionType);  // bahdanau, dot, general, concat, none
const EnumNames<DecoderStyle>& enum_names(DecoderStyle);    // bahdanau, luong
const EnumNames<BridgeType>& enum_names(BridgeType);        // zero, linear
const EnumNames<AttentionNormaliser>& enum_names(AttentionNormaliser);  // softmax, sparsemax, entmax15, hard
const EnumNames<AttentionWindow>& enum_names(AttentionWindow);          // global, local-m, local-p, local-p-offset

struct ModelConfig {
  std::int64_t source_vocab_size = 8000;
  std::int64_t target_vocab_size = 8000;
  std::int64_t embedding_size = 256;       // E: source and target embeddings
  std::int64_t encoder_hidden_size = 256;  // H: per direction; memory vectors are 2H wide
  std::int64_t encoder_layers = 1;
  std::int64_t decoder_hidden_size = 256;  // D: decoder GRU state
  std::int64_t decoder_layers = 1;
  std::int64_t attention_size = 256;       // A: hidden layer of the bahdanau and concat scores
  AttentionType attention = AttentionType::bahdanau;
  bool has_attention() const { return attention != AttentionType::none; }
  /// Stored only when not softmax, so that checkpoints of softmax models read as before everywhere.
  AttentionNormaliser attention_normaliser = AttentionNormaliser::softmax;
  /// Stored only when not global (and the size only then), for the same reason.
  AttentionWindow attention_window = AttentionWindow::global;
  std::int64_t attention_window_size = 10;  // W: the window is [p_t - W, p_t + W], sigma = W / 2
  DecoderStyle decoder_style = DecoderStyle::bahdanau;
  BridgeType bridge = BridgeType::linear;  // decoder's initial state: zeros, or tanh(W [fwd; bwd])
  double dropout = 0.3;                    // embeddings, between GRU layers, before the output layer
  bool share_embeddings = false;           // one embedding matrix for both sides (joint vocabulary)
  bool tie_output_embedding = false;       // output layer weight = target embedding matrix

  /// R: size of the vector the output layer reads (Luong's attentional state, Bahdanau's readout).
  /// E when the output layer is tied to the embeddings, D otherwise.
  std::int64_t readout_size() const { return tie_output_embedding ? embedding_size : decoder_hidden_size; }

  void validate() const;  // throws ConfigError naming the field
  std::string to_json() const;
  static ModelConfig from_json(const std::string& json);  // throws DataError; unknown keys too
  bool operator==(const ModelConfig& other) const { return to_json() == other.to_json(); }
};

}  // namespace nmt
