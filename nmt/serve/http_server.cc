#include "nmt/serve/http_server.h"

#include <cstdint>
#include <string>
#include <utility>

#include <sys/socket.h>
#include <unistd.h>

#include "nmt/serve/connection_pool.h"

namespace nmt {

namespace {

// What the request's headers announce of its body: (bytes, unknown). A body sent chunked or with
// an unreadable length cannot be skipped, so such a connection is not reused.
std::pair<std::uint64_t, bool> announced_body(const httplib::Request& req) {
  if (req.has_header("Transfer-Encoding")) return {0, true};
  if (!req.has_header("Content-Length")) return {0, false};
  const std::string length = req.get_header_value("Content-Length");
  if (length.empty() || length.size() > 18 || length.find_first_not_of("0123456789") != std::string::npos) {
    return {0, true};
  }
  return {std::stoull(length), false};
}

thread_local const ClientConnection* serving = nullptr;

}  // namespace

bool HttpServer::serving_a_cut_off_request() { return serving && serving->cut_off() != RequestPart::none; }

RequestClock HttpServer::current_request_clock() {
  return RequestClock(serving ? serving->request_arrival() : RequestClock::Clock::now());
}

const ClientConnection* HttpServer::current_connection() { return serving; }

void HttpServer::stop_listening() {
  // What cpp-httplib's stop() does once its loop runs; its loop checks svr_sock_ before each accept.
  const socket_t sock = svr_sock_.exchange(INVALID_SOCKET);
  if (sock == INVALID_SOCKET) return;
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
}

// As cpp-httplib's own loop: up to keep_alive_max_count_ requests, while the server runs.
bool HttpServer::process_and_close_socket(socket_t sock) {
  const auto accepted = take_connection_accepted_at();  // the pool's stamp
  ClientConnection connection(sock, timeouts_, accepted.value_or(std::chrono::steady_clock::now()),
                              [this] { return svr_sock_ == INVALID_SOCKET; });
  serving = &connection;
  struct Unset {
    ~Unset() { serving = nullptr; }
  } unset;
  bool ok = false;
  for (std::size_t served = 0; served < keep_alive_max_count_ && svr_sock_ != INVALID_SOCKET; ++served) {
    if (!connection.wait_for_request(served == 0)) break;
    bool closed = false;
    const SetupRequest setup = [&connection](httplib::Request& req) {
      const auto [bytes, unknown] = announced_body(req);
      connection.begin_body(bytes, unknown);
    };
    ok = process_one(*this, connection, served + 1 == keep_alive_max_count_, closed, setup, 0);
    if (!ok || closed || !connection.reusable()) break;
  }
  if (connection.cut_off() != RequestPart::none) {
    std::string address;
    int port = 0;
    connection.get_remote_ip_and_port(address, port);
    if (on_cut_off_) on_cut_off_(connection.cut_off(), address + ":" + std::to_string(port));
    connection.answer_timeout();
    connection.close_gracefully();
    return false;
  }
  connection.close_gracefully();
  return ok;
}

}  // namespace nmt
