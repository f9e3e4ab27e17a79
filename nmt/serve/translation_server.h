// nmt-serve's HTTP server (docs/serving.md): loads the model once, starts the search workers
// (translation_queue.h) and answers the native API, LibreTranslate's API, the web page, /health
// and /metrics on cpp-httplib. Every answer other than the page and the metrics is JSON; every
// error is {"error": "..."} with its status code, and no request can stop the server.
#pragma once

#include <memory>

#include "nmt/serve/serve_options.h"

namespace nmt {

class TranslationServer {
 public:
  /// Loads the checkpoint(s), reads the API keys, starts the search workers and binds the port:
  /// ConfigError, IoError or DataError naming the option or file when any of that fails.
  explicit TranslationServer(ServeOptions options);
  ~TranslationServer();
  TranslationServer(const TranslationServer&) = delete;
  TranslationServer& operator=(const TranslationServer&) = delete;

  /// The port it listens on (the chosen one when the options asked for 0).
  int port() const;
  /// Answers requests until stop(); then the requests in flight finish and the workers end.
  void serve();
  /// From any thread: stop accepting connections; serve() returns once the requests in flight
  /// have their answers.
  void stop();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// nmt-serve's main: serves until SIGINT or SIGTERM, then stops gracefully (requests in flight
/// are answered) and returns.
void run_server(const ServeOptions& options);

}  // namespace nmt
