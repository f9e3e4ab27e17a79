// nmt-serve's settings (docs/serving.md): what to load, where to listen, the defaults of a request's
// search, the batching, and the limits a request must keep.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nmt/model/ensemble_decoder.h"
#include "nmt/kernels/kernels.h"
#include "nmt/model/inference/inference_precision.h"
#include "nmt/search/search_options.h"
#include "nmt/serve/translation_queue.h"
#include "nmt/translate/translate_job.h"

namespace nmt {

/// What one request may ask. Over a size limit: 413; over the time limit: 504.
struct ServeLimits {
  std::size_t max_body_bytes = 1 << 20;  // request body
  std::int64_t max_texts = 128;          // texts (LibreTranslate's q items) per request
  std::int64_t max_sentences = 512;      // sentences per request after splitting
  std::int64_t max_characters = 5000;    // characters (code points) per text
  std::int64_t max_beam = 16;
  std::int64_t max_alternatives = 5;     // LibreTranslate alternatives; native n_best is at most this + 1
  double request_timeout_s = 60;         // from accept to answer
  double max_connection_wait_s = 5;      // a connection that waited longer for an HTTP thread: 503
  double header_timeout_s = 10;          // a request's line and headers, from their first byte: else 408
  double body_timeout_s = 10;            // its body, from the headers' end: else 408
  void validate() const;                 // ConfigError naming the option
};

struct ServeOptions {
  std::vector<std::string> checkpoints;  // several: an ensemble
  TranslateEngine engine = TranslateEngine::native;
  EnsembleMode ensemble_mode = EnsembleMode::log_linear;
  std::string device = "auto";
  int threads = 1;                        // CPU intra-op threads per search worker
  std::string host = "127.0.0.1";
  int port = 5000;                        // LibreTranslate's; 0: any free port (logged)
  int http_threads = 512;                 // connections served at once (a thread each, started as needed)
  std::string api_keys_file;              // set: requests need one of its keys (403 otherwise)
  /// ISO 639 codes for LibreTranslate's API; empty: the extensions of the training data's files
  /// (data/bible/train.es -> "es") when they look like one, else "src" / "tgt".
  std::string source_language, target_language;
  /// The tag a request gets without "tag" (nmt/translate/source_tags.h; "": none); unset: the first
  /// checkpoint's data.default-tag. The server resolves it at start-up.
  std::optional<std::string> tag;
  SearchOptions search;                   // a request's defaults
  Precision precision = Precision::float32;  // a request's default ("precision" field)
  /// The products of the int8 form (inference_precision.h; empty: --precision int8's default;
  /// "none": no int8 form). The server makes it beside the float32 form with the native engine on
  /// the CPU, so that each request may choose.
  std::string int8_products;
  QueueOptions queue;
  ServeLimits limits;
  void validate() const;                  // ConfigError naming the option
  InferencePrecision int8_form() const;   // int8_products parsed (ConfigError naming it)
};

}  // namespace nmt
