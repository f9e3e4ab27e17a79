#include "nmt/model/checkpoint_program.h"

#include <string_view>

#include "nmt/core/error.h"

namespace nmt {
namespace script_files {
std::string_view embedded_file(std::string_view name);  // generated: cmake/NmtEmbedFiles.cmake
}  // namespace script_files

namespace {

std::string file(const std::string& name) {
  const std::string_view text = script_files::embedded_file(name);
  if (text.empty()) throw Error("internal: no embedded TorchScript file " + name);
  return std::string(text) + "\n";
}

std::string attention_file(const ModelConfig& config) {
  switch (config.attention) {
    case AttentionType::bahdanau: return "attention_bahdanau.py";
    case AttentionType::dot:  // with D != 2H dot attention has a projection: general's function
      return config.decoder_hidden_size == 2 * config.encoder_hidden_size ? "attention_dot.py"
                                                                          : "attention_general.py";
    case AttentionType::general: return "attention_general.py";
    case AttentionType::concat: return "attention_concat.py";
    case AttentionType::none: return "attention_none.py";
  }
  throw Error("internal: unknown attention type");
}

std::string normaliser_file(const ModelConfig& config) {
  return "normaliser_" + name_of(config.attention_normaliser) + ".py";
}

// Where attention looks: every position, or a window around local-m's, local-p's or local-p-offset's centre.
std::string window_files(const ModelConfig& config) {
  switch (config.attention_window) {
    case AttentionWindow::global: return file("window_global.py");
    case AttentionWindow::local_m: return file("window_local.py") + file("window_local_m.py");
    case AttentionWindow::local_p:
      return file("window_local.py") + file("window_position.py") + file("window_local_p.py");
    case AttentionWindow::local_p_offset:
      return file("window_local.py") + file("window_position.py") + file("window_local_p_offset.py");
  }
  throw Error("internal: unknown attention window");
}

// One GRU layer's parameters in nn.GRU's names, e.g. "self.model.encoder.rnn.weight_ih_l0_reverse".
std::string gru_parameters(const std::string& module, std::int64_t layer, const std::string& suffix) {
  std::string list;
  for (const char* name : {"weight_ih", "weight_hh", "bias_ih", "bias_hh"}) {
    list += (list.empty() ? "" : ", ") + ("self.model." + module + ".rnn." + name + "_l" + std::to_string(layer) + suffix);
  }
  return list;
}

// The accessors model.py expects, written for this config: TorchScript reads attributes by name
// only, so a loop over layers needs their parameters listed.
std::string accessors(const ModelConfig& config) {
  const std::string target_embedding =
      config.share_embeddings ? "self.model.source_embedding.weight" : "self.model.target_embedding.weight";
  std::string text = "# Generated for this model's config (nmt/model/checkpoint_program.cc).\n\n";
  text += "def _source_embedding(self) -> Tensor:\n    return self.model.source_embedding.weight\n\n";
  text += "def _target_embedding(self) -> Tensor:\n    return " + target_embedding + "\n\n";
  text += "def _output_weight(self) -> Tensor:\n    return " +
          (config.tie_output_embedding ? target_embedding : std::string("self.model.output.weight")) + "\n\n";
  text += "def _encoder_layers(self) -> List[List[Tensor]]:\n    return [";
  for (std::int64_t layer = 0; layer < config.encoder_layers; ++layer) {
    text += std::string(layer ? ",\n            " : "") + "[" + gru_parameters("encoder", layer, "") + ",\n             " +
            gru_parameters("encoder", layer, "_reverse") + "]";
  }
  text += "]\n\n";
  text += "def _decoder_layers(self) -> List[List[Tensor]]:\n    return [";
  for (std::int64_t layer = 0; layer < config.decoder_layers; ++layer) {
    text += std::string(layer ? ",\n            " : "") + "[" + gru_parameters("decoder", layer, "") + "]";
  }
  text += "]\n";
  if (config.attention_window != AttentionWindow::global) {
    text += "\ndef _window_size(self) -> float:\n    return " + std::to_string(config.attention_window_size) + ".0\n";
  }
  return text;
}

}  // namespace

std::string checkpoint_program(const ModelConfig& config) {
  return file("model.py") + file(attention_file(config)) + file(normaliser_file(config)) + window_files(config) +
         file(config.decoder_style == DecoderStyle::bahdanau ? "decoder_bahdanau.py" : "decoder_luong.py") +
         file(config.bridge == BridgeType::linear ? "bridge_linear.py" : "bridge_zero.py") + accessors(config);
}

}  // namespace nmt
