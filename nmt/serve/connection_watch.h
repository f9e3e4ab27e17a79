// Whether an HTTP client is still there while its request waits for translation. cpp-httplib 0.11
// (Debian 12) gives a handler neither the socket nor a "connection closed" test, so the watch finds
// the connection's socket among the process's descriptors by its two endpoints (the peer's address
// and port, our port) and asks the kernel whether the peer has closed its side. Linux only; where
// the socket cannot be found the client counts as present (its request then runs to its time limit).
#pragma once

#include <string>

namespace nmt {

class ConnectionWatch {
 public:
  ConnectionWatch(std::string peer_address, int peer_port, int local_port)
      : peer_address_(std::move(peer_address)), peer_port_(peer_port), local_port_(local_port) {}

  /// True once the peer has closed the connection (or it broke). Cheap after the first call.
  bool client_gone();

 private:
  int find_socket() const;  // the descriptor, or -1
  bool matches(int fd) const;

  std::string peer_address_;
  int peer_port_, local_port_;
  int fd_ = -2;  // -2: not looked for yet; -1: not found
};

}  // namespace nmt
