// cpp-httplib's Server with nmt's own connection loop: each connection is read and written through
// a ClientConnection (client_connection.h), which gives requests' headers and bodies time limits,
// answers a late client 408, and closes by lingering so that an early answer (413) reaches a client
// that is still sending. cpp-httplib parses, routes and answers each request as before
// (Server::process_request); only the socket's I/O and the connection's lifetime are ours.
#pragma once

#include <httplib.h>

#include <chrono>
#include <functional>
#include <string>
#include <utility>

#include "nmt/serve/client_connection.h"

namespace nmt {

/// A request's clock: from its arrival (ClientConnection::request_arrival) to now, and to its
/// time limit.
class RequestClock {
 public:
  using Clock = std::chrono::steady_clock;
  explicit RequestClock(Clock::time_point arrival) : arrival_(arrival) {}
  Clock::time_point arrival() const { return arrival_; }
  double elapsed_s() const { return std::chrono::duration<double>(Clock::now() - arrival_).count(); }
  Clock::time_point deadline(double limit_s) const {
    return arrival_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit_s));
  }

 private:
  Clock::time_point arrival_;
};

class HttpServer : public httplib::Server {
 public:
  using CutOffHandler = std::function<void(RequestPart part, const std::string& client)>;
  /// Before listening: the connections' time limits, and a function told of each request cut off
  /// for being late (called on the connection's thread; `client` is "address:port").
  void set_connection_timeouts(const ConnectionTimeouts& timeouts) { timeouts_ = timeouts; }
  void set_cut_off_handler(CutOffHandler handler) { on_cut_off_ = std::move(handler); }
  /// From a handler or the logger: whether the request being served on the calling thread was cut
  /// off. cpp-httplib still logs such a request with the 400 it could not send; the cut-off handler
  /// has reported it already. (cpp-httplib hands its logger no connection: the connection serving
  /// on a thread is known to that thread only, for the life of process_and_close_socket.)
  static bool serving_a_cut_off_request();
  /// From a handler or the logger: the clock of the request being served on the calling thread
  /// (from now, off a connection's thread).
  static RequestClock current_request_clock();
  /// From a handler: the connection it answers on (valid until the handler returns), or null off a
  /// connection's thread.
  static const ClientConnection* current_connection();
  /// Stops listening, also before listen_after_bind() has begun (cpp-httplib's stop() does nothing
  /// until its loop runs): listen_after_bind() then returns at once. Connections in hand finish.
  void stop_listening();

 private:
  // cpp-httplib's hook for a connection's whole life (a private virtual in 0.11 and 0.18).
  bool process_and_close_socket(socket_t sock) override;

  // Server::process_request takes the connection's addresses in cpp-httplib 0.18 (Debian 13), not in
  // 0.11 (Debian 12): the overload whose call compiles is chosen (int before long).
  using SetupRequest = std::function<void(httplib::Request&)>;
  template <class Self>
  static auto process_one(Self& self, ClientConnection& c, bool close, bool& closed, const SetupRequest& setup, int)
      -> decltype(self.process_request(c, std::string(), 0, std::string(), 0, close, closed, setup)) {
    std::string remote, local;
    int remote_port = 0, local_port = 0;
    c.get_remote_ip_and_port(remote, remote_port);
    c.get_local_ip_and_port(local, local_port);
    return self.process_request(c, remote, remote_port, local, local_port, close, closed, setup);
  }
  template <class Self>
  static auto process_one(Self& self, ClientConnection& c, bool close, bool& closed, const SetupRequest& setup, long)
      -> decltype(self.process_request(c, close, closed, setup)) {
    return self.process_request(c, close, closed, setup);
  }

  ConnectionTimeouts timeouts_;
  CutOffHandler on_cut_off_;
};

}  // namespace nmt
