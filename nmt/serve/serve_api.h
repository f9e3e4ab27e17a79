// The two APIs nmt-serve speaks, as functions from a request's JSON to the answer's JSON
// (docs/serving.md): the native POST /v1/translate, and LibreTranslate's POST /translate and
// GET /languages. HTTP itself (routes, keys, CORS, bodies) is translation_server.cc's.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <string>

#include "nmt/data/tokenizer.h"
#include "nmt/serve/serve_options.h"
#include "nmt/serve/text_translation.h"
#include "nmt/serve/translation_queue.h"
#include "nmt/translate/source_tags.h"

namespace nmt {

/// What the server knows of its model, for GET /v1/model and the languages.
struct ModelInfo {
  std::string source_language, target_language;  // ISO 639 codes, or "src" / "tgt"
  /// A model trained on tagged corpora: the directions its tags ask for (empty: the one above).
  /// LibreTranslate's source and target choose among them; the default tag's comes first.
  std::vector<TagDirection> directions;
  nlohmann::json description;                     // GET /v1/model's answer
};

/// One request's view of the server.
struct ApiContext {
  TranslationQueue& queue;
  const ServeOptions& options;
  const ModelInfo& model;
  const Tokenizer& source_tokenizer;  // to show the source pieces beside attention
  std::chrono::steady_clock::time_point deadline;
  std::function<bool()> client_gone;
  std::size_t sentences = 0;  // set: how many sentences the request had (metrics)
};

/// A /v1/translate request's search: the server's options changed by the request's fields of
/// for_each_search_option (nmt/search/search_option_table.h), each checked against its
/// RequestBounds, replace_unk, and tag (default: the server's, options.tag). Wrong types and values out of bounds: HttpError 400 naming the
/// field; other fields are not looked at.
RequestSearch request_search(const nlohmann::json& request, const ServeOptions& options);

/// GET /v1/model's "defaults": the server's setting of every option a request starts from
/// (SearchOptionDoc::server_default), under its request field, enums by name.
nlohmann::json search_defaults(const SearchOptions& search);

/// POST /v1/translate: {"text": "..." or [...], "beam": 5, "n_best": 1, "attention": false, ...}.
/// Unknown fields, wrong types and bad values: HttpError 400 naming the field.
nlohmann::json translate_native(const nlohmann::json& request, ApiContext& context);

/// POST /translate (LibreTranslate): {"q": "..." or [...], "source": "es" or "auto", "target": "en",
/// "format": "text" or "html", "alternatives": N, "api_key": "..."}. Unknown fields are ignored, as
/// LibreTranslate does. Form bodies arrive as the same object with string values.
nlohmann::json translate_libretranslate(const nlohmann::json& request, ApiContext& context);

/// GET /languages (LibreTranslate): the source language with the target as its one target, and the
/// target language with none; for a tagged model, every language of its directions with the
/// targets it offers from it.
nlohmann::json libretranslate_languages(const ModelInfo& model);

/// The English name of an ISO 639-1 code ("es" -> "Spanish"), or the code itself.
std::string language_name(const std::string& code);

}  // namespace nmt
