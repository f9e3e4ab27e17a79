// What the nmt-serve tests share: a tiny random model's checkpoint, options for a quick server on a
// free loopback port, a server serving on its own thread, and raw-socket exchanges.
#pragma once

#include <httplib.h>

#include <string>
#include <thread>

#include "nmt/serve/translation_server.h"
#include "tests/test_util.h"

namespace nmt::test {

/// A checkpoint of a random model over the toy tokenizer (sizes multiples of 16: batch invariant
/// bit for bit, docs/search.md), trained on files whose extensions name the languages (es, en).
std::string write_tiny_checkpoint(const TempDir& dir);

/// Small limits, a beam of 2, two search workers, any free port.
ServeOptions tiny_options(const std::string& checkpoint);

/// A server serving on its own thread for the test's lifetime.
class RunningServer {
 public:
  explicit RunningServer(ServeOptions options)
      : server_(std::move(options)), thread_([this] { server_.serve(); }) {}
  ~RunningServer() { stop(); }
  void stop() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  int port() const { return server_.port(); }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", server_.port());
    c.set_read_timeout(60, 0);
    return c;
  }

 private:
  TranslationServer server_;
  std::thread thread_;
};

/// Whether `answer` holds a whole HTTP response: its headers and as many body bytes as their
/// Content-Length says (none without one).
bool whole_response(const std::string& answer);

/// Sends `request` on a raw socket and returns what comes back until the server closes the
/// connection (or 10 s pass); with `first_only`, until the first response is whole (the server
/// may send its headers and its body in two writes: one recv() is not a response).
std::string raw_exchange(int port, const std::string& request, bool first_only = false);

/// A connected loopback TCP socket to `port` (-1 on failure), with a receive timeout.
int connect_loopback(int port, double receive_timeout_s = 10);

}  // namespace nmt::test
