#include "nmt/model/model_config.h"

#include <nlohmann/json.hpp>

#include <set>

#include "nmt/core/error.h"

namespace nmt {
namespace {

void require_positive(std::int64_t value, const char* field) {
  if (value < 1) throw ConfigError("model." + std::string(field) + " must be >= 1, got " + std::to_string(value));
}

}  // namespace

const EnumNames<AttentionType>& enum_names(AttentionType) {
  static const EnumNames<AttentionType> names(
      "attention type", {{AttentionType::bahdanau, "bahdanau"}, {AttentionType::dot, "dot"},
                         {AttentionType::general, "general"}, {AttentionType::concat, "concat"},
                         {AttentionType::none, "none"}});
  return names;
}

const EnumNames<DecoderStyle>& enum_names(DecoderStyle) {
  static const EnumNames<DecoderStyle> names("decoder style",
                                             {{DecoderStyle::bahdanau, "bahdanau"}, {DecoderStyle::luong, "luong"}});
  return names;
}

const EnumNames<BridgeType>& enum_names(BridgeType) {
  static const EnumNames<BridgeType> names("bridge type", {{BridgeType::zero, "zero"}, {BridgeType::linear, "linear"}});
  return names;
}

const EnumNames<AttentionNormaliser>& enum_names(AttentionNormaliser) {
  static const EnumNames<AttentionNormaliser> names(
      "attention normaliser", {{AttentionNormaliser::softmax, "softmax"},
                               {AttentionNormaliser::sparsemax, "sparsemax"},
                               {AttentionNormaliser::entmax15, "entmax15"},
                               {AttentionNormaliser::hard, "hard"}});
  return names;
}

const EnumNames<AttentionWindow>& enum_names(AttentionWindow) {
  static const EnumNames<AttentionWindow> names(
      "attention window", {{AttentionWindow::global, "global"},
                           {AttentionWindow::local_m, "local-m"},
                           {AttentionWindow::local_p, "local-p"},
                           {AttentionWindow::local_p_offset, "local-p-offset"}});
  return names;
}

void ModelConfig::validate() const {
  require_positive(source_vocab_size, "source_vocab_size");
  require_positive(target_vocab_size, "target_vocab_size");
  require_positive(embedding_size, "embedding_size");
  require_positive(encoder_hidden_size, "encoder_hidden_size");
  require_positive(encoder_layers, "encoder_layers");
  require_positive(decoder_hidden_size, "decoder_hidden_size");
  require_positive(decoder_layers, "decoder_layers");
  require_positive(attention_size, "attention_size");
  if (!has_attention() && attention_normaliser != AttentionNormaliser::softmax) {
    throw ConfigError("model.attention-normaliser " + name_of(attention_normaliser) +
                      " needs attention; model.attention is none");
  }
  if (!has_attention() && attention_window != AttentionWindow::global) {
    throw ConfigError("model.attention-window " + name_of(attention_window) + " needs attention; model.attention is none");
  }
  if (attention_window_size < 1 || attention_window_size > 1000) {
    throw ConfigError("model.attention-window-size must be in [1, 1000], got " + std::to_string(attention_window_size));
  }
  if (!(dropout >= 0.0 && dropout < 1.0)) {
    throw ConfigError("model.dropout must be in [0, 1), got " + std::to_string(dropout));
  }
  if (share_embeddings && source_vocab_size != target_vocab_size) {
    throw ConfigError("model.share_embeddings needs one vocabulary, got source " +
                      std::to_string(source_vocab_size) + " and target " + std::to_string(target_vocab_size));
  }
}

std::string ModelConfig::to_json() const {
  nlohmann::ordered_json json = {
      {"source_vocab_size", source_vocab_size},
      {"target_vocab_size", target_vocab_size},
      {"embedding_size", embedding_size},
      {"encoder_hidden_size", encoder_hidden_size},
      {"encoder_layers", encoder_layers},
      {"decoder_hidden_size", decoder_hidden_size},
      {"decoder_layers", decoder_layers},
      {"attention_size", attention_size},
      {"attention", name_of(attention)},
      {"decoder_style", name_of(decoder_style)},
      {"bridge", name_of(bridge)},
      {"dropout", dropout},
      {"share_embeddings", share_embeddings},
      {"tie_output_embedding", tie_output_embedding}};
  if (attention_normaliser != AttentionNormaliser::softmax) json["attention_normaliser"] = name_of(attention_normaliser);
  if (attention_window != AttentionWindow::global) {
    json["attention_window"] = name_of(attention_window);
    json["attention_window_size"] = attention_window_size;
  }
  return json.dump();
}

ModelConfig ModelConfig::from_json(const std::string& text) {
  ModelConfig config;
  try {
    const auto json = nlohmann::json::parse(text);
    const std::set<std::string> known = {"source_vocab_size", "target_vocab_size", "embedding_size",
                                         "encoder_hidden_size", "encoder_layers", "decoder_hidden_size",
                                         "decoder_layers", "attention_size", "attention", "decoder_style",
                                         "bridge", "dropout", "share_embeddings", "tie_output_embedding"};
    for (const auto& item : json.items()) {
      static const std::set<std::string> optional = {"attention_normaliser", "attention_window",
                                                     "attention_window_size"};
      if (!known.count(item.key()) && !optional.count(item.key())) {
        throw DataError("model config: unknown key '" + item.key() + "'");
      }
    }
    for (const auto& key : known) {
      if (!json.contains(key)) throw DataError("model config: missing key '" + key + "'");
    }
    config.source_vocab_size = json.at("source_vocab_size").get<std::int64_t>();
    config.target_vocab_size = json.at("target_vocab_size").get<std::int64_t>();
    config.embedding_size = json.at("embedding_size").get<std::int64_t>();
    config.encoder_hidden_size = json.at("encoder_hidden_size").get<std::int64_t>();
    config.encoder_layers = json.at("encoder_layers").get<std::int64_t>();
    config.decoder_hidden_size = json.at("decoder_hidden_size").get<std::int64_t>();
    config.decoder_layers = json.at("decoder_layers").get<std::int64_t>();
    config.attention_size = json.at("attention_size").get<std::int64_t>();
    config.attention = parse_enum<AttentionType>(json.at("attention").get<std::string>());
    config.decoder_style = parse_enum<DecoderStyle>(json.at("decoder_style").get<std::string>());
    config.bridge = parse_enum<BridgeType>(json.at("bridge").get<std::string>());
    config.dropout = json.at("dropout").get<double>();
    config.share_embeddings = json.at("share_embeddings").get<bool>();
    config.tie_output_embedding = json.at("tie_output_embedding").get<bool>();
    if (json.contains("attention_normaliser")) {  // absent: softmax, as every checkpoint before it
      config.attention_normaliser = parse_enum<AttentionNormaliser>(json.at("attention_normaliser").get<std::string>());
    }
    if (json.contains("attention_window") != json.contains("attention_window_size")) {
      throw DataError("model config: attention_window and attention_window_size go together");
    }
    if (json.contains("attention_window")) {  // absent: global, as every checkpoint before it
      config.attention_window = parse_enum<AttentionWindow>(json.at("attention_window").get<std::string>());
      config.attention_window_size = json.at("attention_window_size").get<std::int64_t>();
    }
  } catch (const nlohmann::json::exception& e) {
    throw DataError(std::string("model config: ") + e.what());
  } catch (const ConfigError& e) {
    throw DataError(std::string("model config: ") + e.what());
  }
  try {
    config.validate();
  } catch (const ConfigError& e) {
    throw DataError(std::string("model config: ") + e.what());
  }
  return config;
}

}  // namespace nmt
