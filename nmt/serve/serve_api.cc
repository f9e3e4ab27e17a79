#include "nmt/serve/serve_api.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <type_traits>

#include "nmt/data/attention_record.h"
#include "nmt/search/search_option_table.h"
#include "nmt/translate/translation_output.h"

namespace nmt {

using nlohmann::json;

namespace {

// The most attention weights one answer may hold (each ~10 bytes of JSON): the page's use, a few
// paragraphs with attention, is far below; 512 long sentences with n-best attention are not.
constexpr std::int64_t kMaxAttentionWeights = 2000000;

// A value as the client sent it, cut short for a message.
std::string shown(const json& value) {
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

const json& field(const json& request, const char* name) {
  static const json missing;
  const auto found = request.find(name);
  return found == request.end() ? missing : *found;
}

std::int64_t integer_field(const json& value, const std::string& name, std::int64_t low, std::int64_t high) {
  if (!value.is_number_integer()) throw HttpError(400, name + ": must be an integer, got " + value.dump());
  if (value.is_number_unsigned() && value.get<std::uint64_t>() > static_cast<std::uint64_t>(high)) {
    throw HttpError(400, name + ": must be in [" + std::to_string(low) + ", " + std::to_string(high) + "], got " +
                             shown(value));
  }
  const auto n = value.get<std::int64_t>();
  if (n < low || n > high) {
    throw HttpError(400, name + ": must be in [" + std::to_string(low) + ", " + std::to_string(high) + "], got " +
                             std::to_string(n));
  }
  return n;
}

double number_field(const json& value, const std::string& name, double low, double high) {
  if (!value.is_number()) throw HttpError(400, name + ": must be a number, got " + shown(value));
  const double x = value.get<double>();
  if (!std::isfinite(x) || x < low || x > high) {
    throw HttpError(400, name + ": must be in [" + json(low).dump() + ", " + json(high).dump() + "], got " +
                             shown(value));
  }
  return x;
}

bool bool_field(const json& value, const std::string& name) {
  if (!value.is_boolean()) throw HttpError(400, name + ": must be true or false, got " + shown(value));
  return value.get<bool>();
}

// A string or a list of strings, each valid UTF-8; `is_list` says which it was.
std::vector<std::string> texts_field(const json& value, const std::string& name, std::int64_t max_texts,
                                     bool* is_list) {
  std::vector<std::string> texts;
  *is_list = value.is_array();
  if (value.is_array() && static_cast<std::int64_t>(value.size()) > max_texts) {
    throw HttpError(413, std::to_string(value.size()) + " texts in one request, more than the limit of " +
                             std::to_string(max_texts));
  }
  if (value.is_string()) {
    texts.push_back(value.get<std::string>());
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (!value[i].is_string()) {
        throw HttpError(400, name + "[" + std::to_string(i) + "]: must be a string, got " + shown(value[i]));
      }
      texts.push_back(value[i].get<std::string>());
    }
  } else {
    throw HttpError(400, name + ": must be a string or a list of strings");
  }
  for (std::size_t i = 0; i < texts.size(); ++i) {
    check_request_text(texts[i], *is_list ? name + "[" + std::to_string(i) + "]" : name);
  }
  return texts;
}

// "none, average or gnmt"
template <class Enum>
std::string choices(Enum value) {
  const std::vector<std::string>& names = enum_names(value).names();
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  }
  return text;
}

// The upper bound of a request's value (the table's order puts beam before n_best). `server` is the
// server's setting of the option.
template <class T>
double request_ceiling(const RequestBounds& bounds, T server, const SearchOptions& request, const ServeLimits& limits) {
  switch (bounds.ceiling) {
    case RequestBounds::Ceiling::server_value:
      if constexpr (std::is_arithmetic_v<T>) return static_cast<double>(server);
      break;
    case RequestBounds::Ceiling::max_beam:
      return static_cast<double>(limits.max_beam);
    case RequestBounds::Ceiling::n_best:
      return static_cast<double>(std::min(request.beam_size, limits.max_alternatives + 1));
    case RequestBounds::Ceiling::none:
    case RequestBounds::Ceiling::fixed:
      break;
  }
  return bounds.high;
}

// A request's value of a search option: of the field's type and within [low, high] (400 naming the
// field otherwise).
template <class T>
T search_option_value(const json& value, const std::string& name, double low, double high) {
  if constexpr (std::is_same_v<T, bool>) {
    return bool_field(value, name);
  } else if constexpr (std::is_enum_v<T>) {
    if (!value.is_string()) throw HttpError(400, name + ": must be " + choices(T{}));
    try {
      return parse_enum<T>(value.get<std::string>());
    } catch (const ConfigError&) {
      throw HttpError(400, name + ": must be " + choices(T{}) + ", got " + shown(value));
    }
  } else if constexpr (std::is_floating_point_v<T>) {
    return number_field(value, name, low, high);
  } else {
    return integer_field(value, name, static_cast<std::int64_t>(low), static_cast<std::int64_t>(high));
  }
}

// Length-normalised log-probability: log p / pieces (EOS counted), the confidence the APIs show.
double normalised_score(const TranslatedHypothesis& h) {
  return h.log_prob / static_cast<double>(h.tokens.size() + 1);
}

json sentence_json(const SentenceResult& sentence, bool attention, const Tokenizer& source_tokenizer) {
  json out = {{"source", sentence.source}};
  if (sentence.translation.truncated) out["truncated"] = true;
  if (attention) {
    std::vector<std::string> pieces;
    for (const int id : sentence.translation.source) pieces.push_back(source_tokenizer.id_to_piece(id));
    pieces.push_back("</s>");
    out["source_pieces"] = std::move(pieces);
  }
  json hypotheses = json::array();
  for (std::size_t i = 0; i < sentence.translation.hypotheses.size(); ++i) {
    const TranslatedHypothesis& h = sentence.translation.hypotheses[i];
    json item = {{"text", h.text}, {"score", normalised_score(h)}, {"log_prob", h.log_prob}};
    if (!h.finished) item["finished"] = false;
    if (attention && h.attention.defined()) {
      // The attention record nmt-translate writes (translation_output.h), under the API's names.
      AttentionRecord weights = attention_record(sentence.translation, 0, source_tokenizer, i);
      item["target_pieces"] = std::move(weights.target);
      item["attention"] = std::move(weights.weights);
    }
    hypotheses.push_back(std::move(item));
  }
  out["hypotheses"] = std::move(hypotheses);
  return out;
}

using Direction = TagDirection;

// The model's directions: its tags', or the one it was trained for.
std::vector<Direction> directions_of(const ModelInfo& model) {
  if (!model.directions.empty()) return model.directions;
  return {{model.source_language, model.target_language, ""}};
}

// LibreTranslate's source ("" for auto) and target as one of the model's directions: the first that
// matches (the default tag's comes first). HttpError 400 naming what the server offers otherwise.
Direction choose_direction(const ModelInfo& model, const std::string& source, const std::string& target) {
  const std::vector<Direction> directions = directions_of(model);
  for (const Direction& d : directions) {
    if ((source.empty() || d.source == source) && d.target == target) return d;
  }
  std::vector<std::string> pairs;
  for (const Direction& d : directions) {
    const std::string pair = d.source + " to " + d.target;
    if (std::find(pairs.begin(), pairs.end(), pair) == pairs.end()) pairs.push_back(pair);
  }
  std::string offered;
  for (const std::string& pair : pairs) offered += (offered.empty() ? "" : ", ") + pair;
  const auto known = [&](const std::string& code, bool as_source) {
    return std::any_of(directions.begin(), directions.end(),
                       [&](const Direction& d) { return (as_source ? d.source : d.target) == code; });
  };
  // Name what is unknown: the source, the target, or (both known) the pair.
  const std::string what = !source.empty() && !known(source, true) ? source
                           : !known(target, false)                 ? target
                                                                   : source + " to " + target;
  throw HttpError(400, what + " is not supported (this server translates " + offered + ")");
}

}  // namespace

RequestSearch request_search(const json& request, const ServeOptions& options) {
  RequestSearch search;
  search.search = options.search;
  SearchOptions& s = search.search;
  const SearchOptions own_defaults;
  for_each_search_option([&](const SearchOptionDoc& doc, auto member) {
    if (!doc.server_default) s.*member = own_defaults.*member;
    if (request.contains(doc.field)) {
      using Field = std::remove_reference_t<decltype(s.*member)>;
      s.*member = search_option_value<Field>(request[doc.field], doc.field, doc.request.low,
                                             request_ceiling(doc.request, options.search.*member, s, options.limits));
    }
  });
  if (request.contains("replace_unk")) search.replace_unknown = bool_field(request["replace_unk"], "replace_unk");
  search.tag = options.tag.value_or("");
  if (request.contains("tag")) {
    if (!request["tag"].is_string()) throw HttpError(400, "tag: must be a string, got " + shown(request["tag"]));
    search.tag = request["tag"].get<std::string>();
  }
  search.precision = options.precision;
  if (request.contains("precision")) {
    const json& value = request["precision"];
    const std::optional<Precision> precision =
        value.is_string() ? enum_names(Precision{}).find(value.get<std::string>()) : std::nullopt;
    if (!precision) throw HttpError(400, "precision: must be \"float32\" or \"int8\", got " + shown(value));
    search.precision = *precision;
  }
  return search;
}

json search_defaults(const SearchOptions& search) {
  json defaults = json::object();
  for_each_search_option([&](const SearchOptionDoc& doc, auto member) {
    if (!doc.server_default) return;
    const auto& value = search.*member;
    if constexpr (std::is_enum_v<std::remove_reference_t<decltype(value)>>) {
      defaults[doc.field] = name_of(value);
    } else {
      defaults[doc.field] = value;
    }
  });
  return defaults;
}

json translate_native(const json& request, ApiContext& context) {
  if (!request.is_object()) throw HttpError(400, "request body: must be a JSON object");
  static const std::set<std::string> known = [] {
    std::set<std::string> fields = {"text", "replace_unk", "tag", "precision"};
    for_each_search_option([&](const SearchOptionDoc& doc, auto) { fields.insert(doc.field); });
    return fields;
  }();
  for (const auto& item : request.items()) {
    if (!known.count(item.key())) throw HttpError(400, item.key() + ": unknown field");
  }
  const ServeLimits& limits = context.options.limits;
  if (!request.contains("text")) throw HttpError(400, "text: missing (a string or a list of strings)");
  bool is_list = false;
  const std::vector<std::string> texts = texts_field(request["text"], "text", limits.max_texts, &is_list);

  const RequestSearch search = request_search(request, context.options);
  const SearchOptions& s = search.search;
  const bool attention = s.keep_attention;

  // Attention is one weight per target step and source piece: bound the answer before searching.
  const auto check_attention_size = [&](const std::vector<std::string>& sentences) {
    if (!attention) return;
    const std::int64_t longest = context.options.queue.translate.max_source_length;
    double weights = 0;
    for (const std::string& sentence : sentences) {
      const auto n = std::min<std::int64_t>(static_cast<std::int64_t>(context.source_tokenizer.encode(sentence).size()),
                                            longest);
      weights += static_cast<double>(s.n_best) * static_cast<double>(s.max_length(n) + 1) * static_cast<double>(n + 1);
    }
    if (weights > kMaxAttentionWeights) {
      throw HttpError(413, "with attention, this request could return " + std::to_string(static_cast<long long>(weights)) +
                               " weights, more than the limit of " + std::to_string(kMaxAttentionWeights) +
                               ": ask for fewer or shorter texts, n_best 1, or no attention");
    }
  };
  const std::vector<TextResult> results =
      translate_texts(context.queue, texts, TextFormat::text, search, limits, context.deadline, context.client_gone,
                      &context.sentences, check_attention_size);
  json translations = json::array();
  for (const TextResult& result : results) {
    json sentences = json::array();
    for (const SentenceResult& sentence : result.sentences) {
      sentences.push_back(sentence_json(sentence, attention, context.source_tokenizer));
    }
    translations.push_back({{"text", result.text}, {"sentences", std::move(sentences)}});
  }
  return {{"translations", std::move(translations)}};
}

json translate_libretranslate(const json& request, ApiContext& context) {
  if (!request.is_object()) throw HttpError(400, "Invalid request: the body must be a JSON object or a form");
  const json& q = field(request, "q");
  if (q.is_null() || (q.is_string() && q.get<std::string>().empty()) || (q.is_array() && q.empty())) {
    throw HttpError(400, "Invalid request: missing q parameter");
  }
  const json& source = field(request, "source");
  const json& target = field(request, "target");
  if (!source.is_string() || source.get<std::string>().empty()) {
    throw HttpError(400, "Invalid request: missing source parameter");
  }
  if (!target.is_string() || target.get<std::string>().empty()) {
    throw HttpError(400, "Invalid request: missing target parameter");
  }
  const std::string source_language = source.get<std::string>(), target_language = target.get<std::string>();
  const bool detect = source_language == "auto";
  const Direction direction = choose_direction(context.model, detect ? "" : source_language, target_language);
  TextFormat format = TextFormat::text;
  const json& format_field = field(request, "format");
  if (!format_field.is_null()) {
    const std::string name = format_field.is_string() ? format_field.get<std::string>() : shown(format_field);
    if (name == "html") {
      format = TextFormat::html;
    } else if (name != "text") {
      throw HttpError(400, "Invalid request: format must be text or html, got " + name);
    }
  }
  std::int64_t alternatives = 0;
  const json& alternatives_field = field(request, "alternatives");
  if (!alternatives_field.is_null()) {
    const std::int64_t most = context.options.limits.max_alternatives;
    if (alternatives_field.is_string()) {  // a form body's value
      const std::string text = alternatives_field.get<std::string>();
      if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) {
        throw HttpError(400, "Invalid request: alternatives must be an integer, got " + shown(alternatives_field));
      }
      alternatives = integer_field(json(std::stoll(text)), "alternatives", 0, most);
    } else {
      alternatives = integer_field(alternatives_field, "alternatives", 0, most);
    }
  }
  bool is_list = false;
  const std::vector<std::string> texts = texts_field(q, "q", context.options.limits.max_texts, &is_list);

  RequestSearch search;
  search.search = context.options.search;
  search.tag = direction.tag;
  search.search.n_best = alternatives + 1;
  search.search.beam_size = std::max(search.search.beam_size, alternatives + 1);
  const std::vector<TextResult> results = translate_texts(context.queue, texts, format, search, context.options.limits,
                                                          context.deadline, context.client_gone, &context.sentences);
  const json detected = {{"confidence", 100.0}, {"language", direction.source}};
  json out;
  if (is_list) {
    json translated = json::array(), all_alternatives = json::array(), all_detected = json::array();
    for (const TextResult& r : results) {
      translated.push_back(r.text);
      all_alternatives.push_back(r.alternatives);
      all_detected.push_back(detected);
    }
    out["translatedText"] = std::move(translated);
    if (alternatives > 0) out["alternatives"] = std::move(all_alternatives);
    if (detect) out["detectedLanguage"] = std::move(all_detected);
  } else {
    out["translatedText"] = results.front().text;
    if (alternatives > 0) out["alternatives"] = results.front().alternatives;
    if (detect) out["detectedLanguage"] = detected;
  }
  return out;
}

json libretranslate_languages(const ModelInfo& model) {
  // Every language in order of first mention, each with the targets it offers.
  std::vector<std::pair<std::string, json>> languages;
  const auto entry = [&](const std::string& code) -> json& {
    for (auto& [known, targets] : languages) {
      if (known == code) return targets;
    }
    languages.emplace_back(code, json::array());
    return languages.back().second;
  };
  for (const Direction& d : directions_of(model)) {
    json& targets = entry(d.source);
    if (std::find(targets.begin(), targets.end(), d.target) == targets.end()) targets.push_back(d.target);
    entry(d.target);
  }
  json out = json::array();
  for (auto& [code, targets] : languages) {
    out.push_back({{"code", code}, {"name", language_name(code)}, {"targets", std::move(targets)}});
  }
  return out;
}

std::string language_name(const std::string& code) {
  static const std::map<std::string, std::string> names = {
      {"ar", "Arabic"},     {"ca", "Catalan"},   {"cs", "Czech"},      {"da", "Danish"},     {"de", "German"},
      {"el", "Greek"},      {"en", "English"},   {"eo", "Esperanto"},  {"es", "Spanish"},    {"et", "Estonian"},
      {"eu", "Basque"},     {"fa", "Persian"},   {"fi", "Finnish"},    {"fr", "French"},     {"ga", "Irish"},
      {"gl", "Galician"},   {"he", "Hebrew"},    {"hi", "Hindi"},      {"hu", "Hungarian"},  {"id", "Indonesian"},
      {"it", "Italian"},    {"ja", "Japanese"},  {"ko", "Korean"},     {"la", "Latin"},      {"lt", "Lithuanian"},
      {"lv", "Latvian"},    {"nb", "Norwegian Bokmål"}, {"nl", "Dutch"}, {"pl", "Polish"},  {"pt", "Portuguese"},
      {"ro", "Romanian"},   {"ru", "Russian"},   {"sk", "Slovak"},     {"sl", "Slovenian"},  {"sq", "Albanian"},
      {"sv", "Swedish"},    {"th", "Thai"},      {"tr", "Turkish"},    {"uk", "Ukrainian"},  {"vi", "Vietnamese"},
      {"zh", "Chinese"}};
  const auto found = names.find(code);
  return found == names.end() ? code : found->second;
}

}  // namespace nmt
