#include "nmt/serve/translation_server.h"

#include <ATen/Parallel.h>
#include <httplib.h>
#include <sys/socket.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <csignal>
#include <set>
#include <thread>

#include "nmt/core/allocator.h"
#include "nmt/core/decimal_number.h"
#include "nmt/core/torch_error.h"
#include "nmt/core/device.h"
#include "nmt/core/file_io.h"
#include "nmt/core/log.h"
#include "nmt/core/signal_guard.h"
#include "nmt/core/toml_reader.h"
#include "nmt/core/version.h"
#include "nmt/data/utf8.h"
#include "nmt/serve/api_keys.h"
#include "nmt/serve/connection_pool.h"
#include "nmt/serve/http_server.h"
#include "nmt/serve/serve_api.h"
#include "nmt/serve/server_metrics.h"
#include "nmt/translate/loaded_models.h"
#include "nmt/translate/source_tags.h"

namespace nmt::serve_page {
std::string_view embedded_file(std::string_view name);  // generated from nmt/serve/page/
}

namespace nmt {

using nlohmann::json;

namespace {

std::string base_name(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The language of a training file from its extension ("data/bible/train.es" -> "es"), or "": `key`
// (data.train-source) read from the checkpoint's training configuration, as nmt-train wrote it.
std::string language_of_training_file(const std::string& training_config, const std::string& key) {
  for (const TomlEntry& entry : training_config_entries(training_config)) {
    if (entry.key == key && entry.kind == TomlEntry::Kind::string) return language_of_file(entry.value);
  }
  return "";
}

json directions_json(const std::vector<TagDirection>& directions) {
  json out = json::array();
  for (const TagDirection& d : directions) out.push_back({{"source", d.source}, {"target", d.target}, {"tag", d.tag}});
  return out;
}

void set_json(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace), "application/json");
}

void set_error(httplib::Response& res, int status, const std::string& message) {
  set_json(res, status, {{"error", message}});
}

// The routes /metrics counts by; anything else is "other" (paths are the client's to choose).
std::string route_of(const std::string& path) {
  static const std::set<std::string> routes = {"/",       "/index.html", "/health",        "/metrics",
                                                "/languages", "/translate", "/v1/translate", "/v1/model"};
  return routes.count(path) ? path : "other";
}

// Deeper JSON is refused while parsing: nlohmann's serializer and copies recurse once per level,
// and a 200 KB body of nested arrays would overflow a thread's stack.
constexpr int kMaxJsonDepth = 32;

// A JSON body, or 400: "WHAT is not valid UTF-8 (byte N)", "... not valid JSON (byte N)", "... nested
// deeper than 32 levels", "... holds a number out of range".
json parse_json_body(const std::string& body, const std::string& what) {
  const std::size_t bad = find_invalid_utf8(body);
  if (bad != std::string::npos) throw HttpError(400, what + " is not valid UTF-8 (byte " + std::to_string(bad) + ")");
  const json::parser_callback_t depth_check = [&what](int depth, json::parse_event_t, json&) {
    if (depth > kMaxJsonDepth) {
      throw HttpError(400, what + " is nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    }
    return true;
  };
  try {
    return json::parse(body, depth_check);
  } catch (const json::parse_error& e) {
    throw HttpError(400, what + " is not valid JSON (byte " + std::to_string(e.byte) + ")");
  } catch (const json::exception& e) {  // e.g. a number beyond a double's range
    throw HttpError(400, what + " is not valid JSON: " + e.what());
  }
}

// A form body (urlencoded or multipart) as the JSON object LibreTranslate's API reads: each field a
// string, a field given twice a list (q=a&q=b), uploaded files by their content.
json form_as_json(const httplib::Request& req) {
  json body = json::object();
  const auto add = [&body](const std::string& key, const std::string& value) {
    if (!body.contains(key)) {
      body[key] = value;
      return;
    }
    if (!body[key].is_array()) body[key] = json::array({body[key]});
    body[key].push_back(value);
  };
  for (const auto& [key, value] : req.params) add(key, value);
  for (const auto& [key, file] : req.files) add(key, file.content);
  return body;
}

}  // namespace

struct TranslationServer::State {
  using Request = httplib::Request;
  using Response = httplib::Response;

  ServeOptions options;
  c10::Device device{c10::kCPU};
  LoadedEnsemble loaded;
  ModelInfo model;
  ServerMetrics metrics;
  std::unique_ptr<TranslationQueue> queue;
  ApiKeys keys;
  HttpServer http;
  int port = -1;

  ModelInfo describe_model() const;
  void add_routes();

  // The steps every request passes, in order: admission before its body is read, the route's
  // handler (or CORS preflight, or an error's body), any origin allowed, the access log.
  httplib::Server::HandlerResponse admit(const Request& req, Response& res) const;
  static void answer_preflight(const Request& req, Response& res);
  static void describe_error(const Request& req, Response& res);
  static void describe_exception(const Request& req, Response& res, std::exception_ptr error);
  static void allow_any_origin(const Request& req, Response& res);
  void log_request(const Request& req, const Response& res);

  // One handler per route.
  static void serve_page(const Request& req, Response& res);
  static void serve_health(const Request& req, Response& res);
  void serve_model(const Request& req, Response& res) const;
  void serve_languages(const Request& req, Response& res) const;
  void serve_metrics(const Request& req, Response& res) const;
  static void refuse_get(const Request& req, Response& res);
  void translate_native_route(const Request& req, Response& res);
  void translate_libretranslate_route(const Request& req, Response& res);

  // A translation request's common part: its context (deadline, the client's presence), the API
  // call, errors as answers, the sentence count.
  void answer(const Request& req, Response& res, const std::function<json(ApiContext&)>& translate);
};

// Before the body is read: a connection that waited too long for a thread is 503, and a body that
// is not announced by its length (chunked, or until the connection closes) or announced too large
// is refused unread, and the connection closed.
httplib::Server::HandlerResponse TranslationServer::State::admit(const Request& req, Response& res) const {
  const auto refuse = [&res](int status, const std::string& message) {
    set_error(res, status, message);
    res.set_header("Connection", "close");
    return httplib::Server::HandlerResponse::Handled;
  };
  const double waited = HttpServer::current_request_clock().elapsed_s();
  if (waited > options.limits.max_connection_wait_s) {
    char text[160];
    std::snprintf(text, sizeof text, "the server is busy: this connection waited %.1f s for one of the %d HTTP threads; "
                  "try again shortly", waited, options.http_threads);
    return refuse(503, text);
  }
  if (req.method != "POST" && req.method != "PUT" && req.method != "PATCH") {
    return httplib::Server::HandlerResponse::Unhandled;
  }
  if (req.has_header("Transfer-Encoding")) {
    return refuse(411, "send the body with a Content-Length (chunked bodies are not accepted)");
  }
  if (!req.has_header("Content-Length")) return refuse(411, "a " + req.method + " needs a Content-Length");
  const std::string length = req.get_header_value("Content-Length");
  const bool digits = !length.empty() && length.size() <= 18 && length.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || std::stoull(length) > options.limits.max_body_bytes) {
    return refuse(413, "the request body is larger than " + std::to_string(options.limits.max_body_bytes) +
                           " bytes (--max-body-bytes)");
  }
  return httplib::Server::HandlerResponse::Unhandled;
}

// LibreTranslate answers every origin (flask-cors defaults); so do we, preflight included.
void TranslationServer::State::allow_any_origin(const Request&, Response& res) {
  res.set_header("Access-Control-Allow-Origin", "*");
}

void TranslationServer::State::answer_preflight(const Request& req, Response& res) {
  res.status = 204;
  res.set_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
  const std::string asked = req.get_header_value("Access-Control-Request-Headers");
  res.set_header("Access-Control-Allow-Headers", asked.empty() ? "Content-Type, Authorization, X-API-Key" : asked);
  res.set_header("Access-Control-Max-Age", "86400");
}

void TranslationServer::State::describe_error(const Request& req, Response& res) {
  if (!res.body.empty()) return;
  if (res.status == 404) {
    set_error(res, 404, "not found: " + req.method + " " + req.path);
  } else if (res.status == 413) {  // cpp-httplib's own limit: 8 KiB for urlencoded forms
    set_error(res, 413, "the request body is too large (a form body may hold 8 KiB: send larger texts as JSON)");
  } else {
    set_error(res, res.status, "HTTP status " + std::to_string(res.status));
  }
}

void TranslationServer::State::describe_exception(const Request& req, Response& res, std::exception_ptr error) {
  std::string message = "internal error";
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    message = first_line(e);
  } catch (...) {
  }
  log().error("{} {}: {}", req.method, req.path, message);
  set_error(res, 500, message);
}

void TranslationServer::State::log_request(const Request& req, const Response& res) {
  if (HttpServer::serving_a_cut_off_request()) return;  // logged and counted as a cut-off
  const double seconds = HttpServer::current_request_clock().elapsed_s();
  metrics.count_request(route_of(req.path), res.status, seconds);
  // The path is the client's: control characters shown escaped, so no line of the log is forged.
  log().info("{}:{} \"{} {}\" {} {} {:.1f} ms", req.remote_addr, req.remote_port, shown_text(req.method, 16),
             shown_text(req.path, 200), res.status, res.body.size(), seconds * 1000);
}

void TranslationServer::State::serve_page(const Request&, Response& res) {
  const std::string_view html = serve_page::embedded_file("index.html");
  res.set_content(std::string(html), "text/html; charset=utf-8");
}

void TranslationServer::State::serve_health(const Request&, Response& res) { set_json(res, 200, {{"status", "ok"}}); }

void TranslationServer::State::serve_model(const Request&, Response& res) const { set_json(res, 200, model.description); }

void TranslationServer::State::serve_languages(const Request&, Response& res) const {
  set_json(res, 200, libretranslate_languages(model));
}

void TranslationServer::State::serve_metrics(const Request&, Response& res) const {
  res.set_content(metrics.prometheus(queue->queued_sentences(), queue->worker_count()),
                  "text/plain; version=0.0.4; charset=utf-8");
}

void TranslationServer::State::refuse_get(const Request& req, Response& res) {
  set_error(res, 405, req.method + " " + req.path + ": use POST");
  res.set_header("Allow", "POST, OPTIONS");
}

void TranslationServer::State::translate_native_route(const Request& req, Response& res) {
  if (!keys.allow(req, nullptr)) return set_error(res, 403, "Invalid API key");
  answer(req, res, [&](ApiContext& context) {
    return translate_native(parse_json_body(req.body, "request body"), context);
  });
}

void TranslationServer::State::translate_libretranslate_route(const Request& req, Response& res) {
  json body;
  if (req.get_header_value("Content-Type").rfind("application/json", 0) == 0) {
    try {
      body = parse_json_body(req.body, "Invalid request: the body");
    } catch (const HttpError& e) {
      return set_error(res, e.status(), e.what());
    }
  } else {
    body = form_as_json(req);
  }
  if (!keys.allow(req, &body)) return set_error(res, 403, "Invalid API key");
  answer(req, res, [&](ApiContext& context) { return translate_libretranslate(body, context); });
}

void TranslationServer::State::answer(const Request&, Response& res, const std::function<json(ApiContext&)>& translate) {
  ApiContext context{*queue,
                     options,
                     model,
                     loaded.members.front().source_tokenizer,
                     HttpServer::current_request_clock().deadline(options.limits.request_timeout_s),
                     nullptr};
  const ClientConnection* connection = HttpServer::current_connection();
  context.client_gone = [connection] { return connection && connection->client_gone(); };
  try {
    set_json(res, 200, translate(context));
  } catch (const HttpError& e) {
    set_error(res, e.status(), e.what());
  } catch (const json::exception& e) {
    set_error(res, 400, std::string("request body: ") + e.what());
  }
  metrics.count_sentences(context.sentences);
}

void TranslationServer::State::add_routes() {
  http.set_payload_max_length(options.limits.max_body_bytes);
  http.set_pre_routing_handler([this](const Request& req, Response& res) { return admit(req, res); });
  http.set_post_routing_handler(allow_any_origin);
  http.Options(".*", answer_preflight);
  http.set_error_handler(describe_error);
  http.set_exception_handler(describe_exception);
  http.set_logger([this](const Request& req, const Response& res) { log_request(req, res); });
  http.Get("/", serve_page);
  http.Get("/index.html", serve_page);
  http.Get("/health", serve_health);
  http.Get("/v1/model", [this](const Request& req, Response& res) { serve_model(req, res); });
  http.Get("/languages", [this](const Request& req, Response& res) { serve_languages(req, res); });
  http.Get("/metrics", [this](const Request& req, Response& res) { serve_metrics(req, res); });
  http.Get("/translate", refuse_get);
  http.Get("/v1/translate", refuse_get);
  http.Post("/v1/translate", [this](const Request& req, Response& res) { translate_native_route(req, res); });
  http.Post("/translate", [this](const Request& req, Response& res) { translate_libretranslate_route(req, res); });
}

ModelInfo TranslationServer::State::describe_model() const {
  ModelInfo info;
  const LoadedModel& first = loaded.members.front();
  info.source_language = options.source_language;
  info.target_language = options.target_language;
  // A tagged model: its directions, the default tag's first; it names the languages unless given.
  info.directions = tag_directions(first.training_config);
  const std::string tag = options.tag.value_or("");
  std::stable_partition(info.directions.begin(), info.directions.end(),
                        [&](const TagDirection& d) { return d.tag == tag; });
  if (!info.directions.empty()) {
    // --source-language and --target-language rename the default direction's languages wherever
    // they appear (its reverse too); a file without a language extension gives src / tgt.
    const std::string file_source = info.directions.front().source, file_target = info.directions.front().target;
    if (info.source_language.empty()) info.source_language = file_source.empty() ? "src" : file_source;
    if (info.target_language.empty()) info.target_language = file_target.empty() ? "tgt" : file_target;
    for (TagDirection& d : info.directions) {
      for (std::string* code : {&d.source, &d.target}) {
        if (*code == file_source) {
          *code = info.source_language;
        } else if (*code == file_target) {
          *code = info.target_language;
        } else if (code->empty()) {
          *code = code == &d.source ? "src" : "tgt";
        }
      }
    }
  }
  if (info.source_language.empty()) info.source_language = language_of_training_file(first.training_config, "data.train-source");
  if (info.target_language.empty()) info.target_language = language_of_training_file(first.training_config, "data.train-target");
  if (info.source_language.empty()) info.source_language = "src";
  if (info.target_language.empty()) info.target_language = "tgt";
  json checkpoints = json::array();
  for (std::size_t i = 0; i < options.checkpoints.size(); ++i) {
    checkpoints.push_back({{"file", base_name(options.checkpoints[i])},
                           {"source_vocabulary_size", loaded.members[i].source_tokenizer.vocab_size()},
                           {"target_vocabulary_size", loaded.members[i].target_tokenizer.vocab_size()},
                           {"toolkit_version", loaded.members[i].toolkit_version},
                           {"training_config", loaded.members[i].training_config}});
  }
  info.description = {
      {"source_language", info.source_language},
      {"target_language", info.target_language},
      {"version", version()},
      {"engine", enum_names(options.engine).name(options.engine)},
      {"ensemble_mode", enum_names(options.ensemble_mode).name(options.ensemble_mode)},
      {"has_attention", loaded.decoder().has_attention()},
      {"device", options.device},
      {"search_workers", queue->worker_count()},
      {"checkpoints", std::move(checkpoints)},
      {"defaults", search_defaults(options.search)},
      {"precision", name_of(options.precision)},
      {"precisions", loaded.int8_decoder() != nullptr ? json::array({"float32", "int8"}) : json::array({"float32"})},
      {"int8_products", loaded.int8_decoder() != nullptr ? options.int8_form().describe() : "none"},
      {"tags", model_tags(first.source_tokenizer)},
      {"default_tag", tag},
      {"directions", directions_json(info.directions)},
      {"max_beam", options.limits.max_beam},
      {"max_alternatives", options.limits.max_alternatives},
      {"max_texts", options.limits.max_texts},
      {"max_sentences", options.limits.max_sentences},
      {"max_characters", options.limits.max_characters},
      {"max_body_bytes", options.limits.max_body_bytes},
      {"request_timeout_s", options.limits.request_timeout_s}};
  return info;
}

TranslationServer::TranslationServer(ServeOptions options) : state_(std::make_unique<State>()) {
  State& s = *state_;
  options.validate();
  s.options = std::move(options);
  // A client that hangs up while we write must not end the server (cpp-httplib writes with flags 0).
  std::signal(SIGPIPE, SIG_IGN);
  if (!s.options.api_keys_file.empty()) s.keys = ApiKeys::from_file(s.options.api_keys_file);
  keep_freed_memory();
  at::set_num_threads(s.options.threads);
  s.device = parse_device(s.options.device, s.options.precision == Precision::int8);
  // With the native engine on the CPU each model also gets its int8 form, for the requests that ask.
  const InferencePrecision int8_form = s.options.int8_form();
  const bool offers_int8 =
      int8_form.any() && s.options.engine == TranslateEngine::native && s.device.is_cpu();
  if (s.options.precision == Precision::int8 && !offers_int8) {
    throw ConfigError("precision int8 needs the native engine on the CPU");
  }
  s.loaded = load_models(s.options.checkpoints, s.options.engine, s.options.ensemble_mode, s.device, {},
                         offers_int8 ? &int8_form : nullptr);
  const LoadedModel& first = s.loaded.members.front();
  // The requests' default tag, checked once (a tag the model lacks stops the server here).
  s.options.tag = choose_tag(first.source_tokenizer, s.options.tag ? &*s.options.tag : nullptr,
                             default_tag_of(first.training_config));
  s.options.queue.translate.search = s.options.search;
  s.queue = std::make_unique<TranslationQueue>(
      s.loaded.decoder(), first.source_tokenizer, first.target_tokenizer, s.device, s.options.queue,
      [this](std::size_t sentences, double seconds) { state_->metrics.count_batch(sentences, seconds); },
      s.loaded.int8_decoder());
  s.model = s.describe_model();
  s.http.new_task_queue = [threads = s.options.http_threads] {
    return new ConnectionPool(static_cast<std::size_t>(threads));
  };
  ConnectionTimeouts timeouts;
  timeouts.header_s = s.options.limits.header_timeout_s;
  timeouts.body_s = s.options.limits.body_timeout_s;
  s.http.set_connection_timeouts(timeouts);
  s.http.set_cut_off_handler([this](RequestPart part, const std::string& client) {
    const char* name = part == RequestPart::body ? "body" : "header";
    log().warn("{} cut off (408): its request's {} did not arrive within --{}-timeout", client,
               part == RequestPart::body ? "body" : "line and headers", name);
    state_->metrics.count_cut_off(name);
  });
  s.add_routes();
  // Answers go out at once: without TCP_NODELAY, Nagle's algorithm and the client's delayed ACK
  // held most answers on a kept-alive connection ~40 ms (measured with scripts/bench_serve.sh).
  s.http.set_tcp_nodelay(true);
  s.http.set_keep_alive_max_count(1000);
  // cpp-httplib's default sets SO_REUSEPORT, with which a second server on the same port starts
  // and silently takes half the connections. SO_REUSEADDR alone only allows a restart while old
  // connections linger (TIME_WAIT); a port another server holds is refused.
  int listening = -1;
  s.http.set_socket_options([&listening](auto sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    listening = sock;
  });
  if (s.options.port == 0) {
    s.port = s.http.bind_to_any_port(s.options.host);
  } else if (s.http.bind_to_port(s.options.host, s.options.port)) {
    s.port = s.options.port;
  }
  // cpp-httplib 0.11 listens with a backlog of 5: clients connecting together beyond that saw
  // their connections reset (scripts/bench_serve.sh, 16 clients). listen() again sets the queue.
  if (s.port > 0 && listening >= 0) ::listen(listening, SOMAXCONN);
  if (s.port <= 0) {
    throw IoError("cannot listen on " + s.options.host + ":" + std::to_string(s.options.port) +
                  " (another program holds the port, the address is not this machine's, or the port is privileged)");
  }
}

TranslationServer::~TranslationServer() {
  stop();
  state_->queue->stop();
}

int TranslationServer::port() const { return state_->port; }

void TranslationServer::serve() {
  state_->http.listen_after_bind();  // returns after stop(), once the connections in hand are served
  state_->queue->stop();
}

void TranslationServer::stop() { state_->http.stop_listening(); }

void run_server(const ServeOptions& options) {
  SignalGuard signals;
  TranslationServer server(options);
  log().info("nmt-serve {}: listening on http://{}:{}/ (native API /v1/translate, LibreTranslate API /translate)",
             version(), options.host.find(':') == std::string::npos ? options.host : "[" + options.host + "]",
             server.port());
  std::atomic<bool> done{false};
  // A signal handler may not stop the server itself: this thread looks for one every 50 ms.
  std::thread watcher([&] {
    while (!done.load()) {
      if (const int signal = signals.received()) {
        log().info("signal {}: no new connections; answering the requests in flight", signal);
        server.stop();
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  server.serve();
  done = true;
  watcher.join();
  log().info("nmt-serve stopped");
}

}  // namespace nmt
