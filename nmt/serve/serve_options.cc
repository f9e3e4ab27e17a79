#include "nmt/serve/serve_options.h"

#include <cctype>
#include <cmath>
#include <utility>

#include "nmt/core/error.h"
#include "nmt/core/thread_count.h"

namespace nmt {

void ServeLimits::validate() const {
  require_option(max_body_bytes >= 1024 && max_body_bytes <= (std::size_t{1} << 30), "max-body-bytes",
                 "in [1024, 1073741824]", std::to_string(max_body_bytes));
  require_option(max_texts >= 1, "max-texts", ">= 1", std::to_string(max_texts));
  require_option(max_sentences >= 1, "max-sentences", ">= 1", std::to_string(max_sentences));
  require_option(max_characters >= 1, "max-characters", ">= 1", std::to_string(max_characters));
  require_option(max_beam >= 1 && max_beam <= 256, "max-beam", "in [1, 256]", std::to_string(max_beam));
  require_option(max_alternatives >= 0 && max_alternatives < max_beam, "max-alternatives",
                 "in [0, max-beam - 1]", std::to_string(max_alternatives));
  require_option(std::isfinite(request_timeout_s) && request_timeout_s > 0 && request_timeout_s <= 86400,
                 "request-timeout", "in (0, 86400] seconds", std::to_string(request_timeout_s));
  for (const auto& [name, value] : {std::pair{"header-timeout", header_timeout_s}, {"body-timeout", body_timeout_s}}) {
    require_option(std::isfinite(value) && value > 0 && value <= 3600, name, "in (0, 3600] seconds", std::to_string(value));
  }
  require_option(std::isfinite(max_connection_wait_s) && max_connection_wait_s > 0 && max_connection_wait_s <= 3600,
                 "max-connection-wait", "in (0, 3600] seconds", std::to_string(max_connection_wait_s));
}

InferencePrecision ServeOptions::int8_form() const {
  return int8_products.empty() ? InferencePrecision::of(Precision::int8)
                               : InferencePrecision::parse(int8_products, "int8-products");
}

void ServeOptions::validate() const {
  if (checkpoints.empty()) throw ConfigError("model: give at least one checkpoint");
  check_thread_count(threads, "threads");
  require_option(!host.empty(), "host", "an address (127.0.0.1, ::1, 0.0.0.0)", "''");
  require_option(port >= 0 && port <= 65535, "port", "in [0, 65535] (0: any free port)", std::to_string(port));
  require_option(http_threads >= 1 && http_threads <= 4096, "http-threads", "in [1, 4096]", std::to_string(http_threads));
  for (const auto& [name, code] : {std::pair{"source-language", &source_language}, {"target-language", &target_language}}) {
    bool ok = code->size() <= 35;  // BCP 47 tags are short: letters, digits and '-'
    for (const char c : *code) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_');
    require_option(ok, name, "a language code such as es or en", "'" + *code + "'");
  }
  search.validate();
  if (precision == Precision::int8 && !int8_form().any()) {
    throw ConfigError("precision int8 needs an int8 form, and int8-products is none");
  }
  require_option(search.beam_size <= limits.max_beam, "beam-size", "<= max-beam (" + std::to_string(limits.max_beam) + ")",
                 std::to_string(search.beam_size));
  queue.validate();
  limits.validate();
  require_option(limits.max_sentences <= queue.max_queued_sentences, "max-sentences",
                 "<= max-queued-sentences (" + std::to_string(queue.max_queued_sentences) +
                     "): a larger request could never be queued",
                 std::to_string(limits.max_sentences));
}

}  // namespace nmt
