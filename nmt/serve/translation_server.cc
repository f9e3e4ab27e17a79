#include "nmt/serve/translation_server.h"

#include <ATen/Parallel.h>
#include <httplib.h>
#include <sys/socket.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <cstdio>
#include <csignal>
#include <mutex>
#include <regex>
#include <set>
#include <thread>

#include "nmt/core/allocator.h"
#include "nmt/core/decimal_number.h"
#include "nmt/core/device.h"
#include "nmt/core/file_io.h"
#include "nmt/core/log.h"
#include "nmt/core/sha256.h"
#include "nmt/core/signal_guard.h"
#include "nmt/core/version.h"
#include "nmt/data/utf8.h"
#include "nmt/serve/connection_pool.h"
#include "nmt/serve/connection_watch.h"
#include "nmt/serve/http_server.h"
#include "nmt/serve/serve_api.h"
#include "nmt/serve/server_metrics.h"
#include "nmt/translate/loaded_models.h"

namespace nmt::serve_page {
std::string_view embedded_file(std::string_view name);  // generated from nmt/serve/page/
}

namespace nmt {

using nlohmann::json;

namespace {

constexpr std::size_t kMaxKeysFileBytes = 1 << 20;

// The language of a training file from its extension ("data/bible/train.es" -> "es"), or "".
std::string language_of_training_file(const std::string& training_config, const std::string& key) {
  const std::regex line("(^|\\n)\\s*" + key + "\\s*=\\s*\"[^\"\\n]*\\.([a-z]{2,3})\"");
  std::smatch match;
  return std::regex_search(training_config, match, line) ? match[2].str() : std::string();
}

std::string base_name(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The SHA-256 digests of the keys in `path`: one key a line; blank lines and lines starting with #
// are skipped, spaces around a key are not part of it. Looking up digests keeps a comparison's time
// independent of how much of a guess was right.
std::set<std::string> read_api_keys(const std::string& path) {
  std::string text;
  try {
    text = read_file(path);
  } catch (const IoError& e) {
    throw IoError(std::string("api-keys: ") + e.what());
  }
  if (text.size() > kMaxKeysFileBytes) throw ConfigError("api-keys: " + path + " is larger than 1 MiB");
  std::set<std::string> digests;
  std::size_t start = 0, line = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    ++line;
    std::string key = text.substr(start, end - start);
    start = end + 1;
    const auto first = key.find_first_not_of(" \t\r");
    if (first == std::string::npos || key[first] == '#') continue;
    key = key.substr(first, key.find_last_not_of(" \t\r") - first + 1);
    for (const char c : key) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
        throw ConfigError("api-keys: " + path + " line " + std::to_string(line) + ": a key contains a control character");
      }
    }
    digests.insert(sha256_hex(key));
  }
  if (digests.empty()) throw ConfigError("api-keys: " + path + " has no keys (one key a line; # starts a comment)");
  return digests;
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

// Set by the pre-routing handler, read by the handler and the logger (all on the connection's
// thread). A request refused before routing (a malformed request line) has no arrival: 0 s.
thread_local std::chrono::steady_clock::time_point request_arrival;
thread_local bool request_arrived = false;

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

}  // namespace

struct TranslationServer::State {
  ServeOptions options;
  c10::Device device{c10::kCPU};
  LoadedEnsemble loaded;
  ModelInfo model;
  ServerMetrics metrics;
  std::unique_ptr<TranslationQueue> queue;
  std::set<std::string> key_digests;
  HttpServer http;
  int port = -1;
  std::mutex run_mutex;          // guards the two flags below
  bool stop_requested = false;   // stop() came: serve() must not start listening
  bool listening = false;        // serve() is in (or about to enter) cpp-httplib's loop

  bool key_allowed(const httplib::Request& req, const json* body) const;
  void add_routes();
  void answer(const httplib::Request& req, httplib::Response& res,
              const std::function<json(ApiContext&)>& translate);
  ModelInfo describe_model() const;
};

bool TranslationServer::State::key_allowed(const httplib::Request& req, const json* body) const {
  if (key_digests.empty()) return true;
  std::string key;
  const std::string authorization = req.get_header_value("Authorization");
  if (authorization.rfind("Bearer ", 0) == 0) {
    key = authorization.substr(7);
  } else if (req.has_header("X-API-Key")) {
    key = req.get_header_value("X-API-Key");
  } else if (body && body->is_object() && body->contains("api_key") && (*body)["api_key"].is_string()) {
    key = (*body)["api_key"].get<std::string>();
  }
  return !key.empty() && key_digests.count(sha256_hex(key)) > 0;
}

void TranslationServer::State::answer(const httplib::Request& req, httplib::Response& res,
                                      const std::function<json(ApiContext&)>& translate) {
  ApiContext context{*queue,
                     options,
                     model,
                     loaded.members.front().source_tokenizer,
                     request_arrival + std::chrono::microseconds(
                                           static_cast<std::int64_t>(options.limits.request_timeout_s * 1e6)),
                     nullptr};
  ConnectionWatch watch(req.remote_addr, req.remote_port, req.local_port);
  context.client_gone = [&watch] { return watch.client_gone(); };
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
  // Before the body is read: a body that is not announced by its length (chunked, or until the
  // connection closes) or announced too large is refused unread, and the connection closed.
  http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    // A connection's first request counts from accept: the wait for a free thread is the client's too.
    const auto now = std::chrono::steady_clock::now();
    const auto accepted = take_connection_accepted_at();
    request_arrival = accepted ? *accepted : now;
    request_arrived = true;
    const auto refuse = [&res](int status, const std::string& message) {
      set_error(res, status, message);
      res.set_header("Connection", "close");
      return httplib::Server::HandlerResponse::Handled;
    };
    const double waited = std::chrono::duration<double>(now - request_arrival).count();
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
  });
  // LibreTranslate answers every origin (flask-cors defaults); so do we, preflight included.
  http.set_post_routing_handler([](const httplib::Request&, httplib::Response& res) {
    res.set_header("Access-Control-Allow-Origin", "*");
  });
  http.Options(".*", [](const httplib::Request& req, httplib::Response& res) {
    res.status = 204;
    res.set_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
    const std::string asked = req.get_header_value("Access-Control-Request-Headers");
    res.set_header("Access-Control-Allow-Headers", asked.empty() ? "Content-Type, Authorization, X-API-Key" : asked);
    res.set_header("Access-Control-Max-Age", "86400");
  });
  http.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    if (res.status == 404) {
      set_error(res, 404, "not found: " + req.method + " " + req.path);
    } else if (res.status == 413) {  // cpp-httplib's own limit: 8 KiB for urlencoded forms
      set_error(res, 413, "the request body is too large (a form body may hold 8 KiB: send larger texts as JSON)");
    } else {
      set_error(res, res.status, "HTTP status " + std::to_string(res.status));
    }
  });
  http.set_exception_handler([](const httplib::Request& req, httplib::Response& res, std::exception_ptr error) {
    std::string message = "internal error";
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      message = first_line(e);
    } catch (...) {
    }
    log().error("{} {}: {}", req.method, req.path, message);
    set_error(res, 500, message);
  });
  http.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
    if (HttpServer::serving_a_cut_off_request()) return;  // logged and counted as a cut-off
    const double seconds =
        request_arrived ? std::chrono::duration<double>(std::chrono::steady_clock::now() - request_arrival).count() : 0;
    request_arrived = false;
    metrics.count_request(route_of(req.path), res.status, seconds);
    // The path is the client's: control characters shown escaped, so no line of the log is forged.
    log().info("{}:{} \"{} {}\" {} {} {:.1f} ms", req.remote_addr, req.remote_port, shown_text(req.method, 16),
               shown_text(req.path, 200), res.status, res.body.size(), seconds * 1000);
  });

  const auto page = [](const httplib::Request&, httplib::Response& res) {
    const std::string_view html = serve_page::embedded_file("index.html");
    res.set_content(std::string(html), "text/html; charset=utf-8");
  };
  http.Get("/", page);
  http.Get("/index.html", page);
  http.Get("/health", [](const httplib::Request&, httplib::Response& res) { set_json(res, 200, {{"status", "ok"}}); });
  http.Get("/v1/model", [this](const httplib::Request&, httplib::Response& res) { set_json(res, 200, model.description); });
  http.Get("/languages", [this](const httplib::Request&, httplib::Response& res) {
    set_json(res, 200, libretranslate_languages(model));
  });
  http.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(metrics.prometheus(queue->queued_sentences(), queue->worker_count()),
                    "text/plain; version=0.0.4; charset=utf-8");
  });
  for (const char* route : {"/translate", "/v1/translate"}) {
    http.Get(route, [](const httplib::Request& req, httplib::Response& res) {
      set_error(res, 405, req.method + " " + req.path + ": use POST");
      res.set_header("Allow", "POST, OPTIONS");
    });
  }
  http.Post("/v1/translate", [this](const httplib::Request& req, httplib::Response& res) {
    if (!key_allowed(req, nullptr)) return set_error(res, 403, "Invalid API key");
    answer(req, res, [&](ApiContext& context) {
      return translate_native(parse_json_body(req.body, "request body"), context);
    });
  });
  http.Post("/translate", [this](const httplib::Request& req, httplib::Response& res) {
    json body = json::object();
    const std::string type = req.get_header_value("Content-Type");
    if (type.rfind("application/json", 0) == 0) {
      try {
        body = parse_json_body(req.body, "Invalid request: the body");
      } catch (const HttpError& e) {
        return set_error(res, e.status(), e.what());
      }
    } else {  // a form (urlencoded or multipart); a key given twice is a list (q=a&q=b)
      for (const auto& [key, value] : req.params) {
        if (!body.contains(key)) {
          body[key] = value;
        } else {
          if (!body[key].is_array()) body[key] = json::array({body[key]});
          body[key].push_back(value);
        }
      }
      for (const auto& [key, file] : req.files) {
        if (!body.contains(key)) {
          body[key] = file.content;
        } else {
          if (!body[key].is_array()) body[key] = json::array({body[key]});
          body[key].push_back(file.content);
        }
      }
    }
    if (!key_allowed(req, &body)) return set_error(res, 403, "Invalid API key");
    answer(req, res, [&](ApiContext& context) { return translate_libretranslate(body, context); });
  });
}

ModelInfo TranslationServer::State::describe_model() const {
  ModelInfo info;
  const LoadedModel& first = loaded.members.front();
  info.source_language = options.source_language;
  info.target_language = options.target_language;
  if (info.source_language.empty()) info.source_language = language_of_training_file(first.training_config, "train-source");
  if (info.target_language.empty()) info.target_language = language_of_training_file(first.training_config, "train-target");
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
  const SearchOptions& s = options.search;
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
      {"defaults",
       {{"beam", s.beam_size},
        {"length_penalty", enum_names(s.length_penalty).name(s.length_penalty)},
        {"length_alpha", s.length_alpha},
        {"coverage_beta", s.coverage_beta},
        {"max_length_a", s.max_length_a},
        {"max_length_b", s.max_length_b},
        {"min_length", s.min_length},
        {"no_repeat_ngram", s.no_repeat_ngram}}},
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
  if (!s.options.api_keys_file.empty()) s.key_digests = read_api_keys(s.options.api_keys_file);
  keep_freed_memory();
  at::set_num_threads(s.options.threads);
  s.device = parse_device(s.options.device);
  s.loaded = load_models(s.options.checkpoints, s.options.engine, s.options.ensemble_mode, s.device);
  const LoadedModel& first = s.loaded.members.front();
  s.options.queue.translate.search = s.options.search;
  s.queue = std::make_unique<TranslationQueue>(
      s.loaded.decoder(), first.source_tokenizer, first.target_tokenizer, s.loaded.extra_source_tokenizers, s.device,
      s.options.queue, [this](std::size_t sentences, double seconds) { state_->metrics.count_batch(sentences, seconds); });
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
  State& s = *state_;
  {
    const std::lock_guard<std::mutex> lock(s.run_mutex);
    s.listening = !s.stop_requested;
  }
  if (s.listening) s.http.listen_after_bind();  // returns after stop(), once the handlers in flight are done
  {
    const std::lock_guard<std::mutex> lock(s.run_mutex);
    s.listening = false;
  }
  s.queue->stop();
}

// cpp-httplib's stop() does nothing before its loop runs, so a stop() that comes while serve() is
// starting waits for the loop (or for serve() to end) before asking it to end.
void TranslationServer::stop() {
  State& s = *state_;
  {
    const std::lock_guard<std::mutex> lock(s.run_mutex);
    s.stop_requested = true;
    if (!s.listening) return;
  }
  while (!s.http.is_running()) {
    {
      const std::lock_guard<std::mutex> lock(s.run_mutex);
      if (!s.listening) return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  s.http.stop();
}

void run_server(const ServeOptions& options) {
  SignalGuard signals;
  TranslationServer server(options);
  log().info("nmt-serve {}: listening on http://{}:{}/ (native API /v1/translate, LibreTranslate API /translate)",
             version(), options.host.find(':') == std::string::npos ? options.host : "[" + options.host + "]",
             server.port());
  std::atomic<bool> done{false};
  // A stop() before serve() has started listening does nothing: keep asking until it ends.
  std::thread watcher([&] {
    bool told = false;
    while (!done.load()) {
      if (const int signal = signals.received()) {
        if (!told) log().info("signal {}: no new connections; answering the requests in flight", signal);
        told = true;
        server.stop();
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
