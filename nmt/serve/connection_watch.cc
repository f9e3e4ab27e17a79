#include "nmt/serve/connection_watch.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <cstdlib>
#include <cstring>

namespace nmt {

namespace {

// The address and port of a socket name, as text and number.
bool endpoint(const sockaddr_storage& name, std::string* address, int* port) {
  char text[INET6_ADDRSTRLEN] = {};
  if (name.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&name);
    if (!inet_ntop(AF_INET, &in->sin_addr, text, sizeof text)) return false;
    *port = ntohs(in->sin_port);
  } else if (name.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&name);
    if (!inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text)) return false;
    *port = ntohs(in6->sin6_port);
  } else {
    return false;
  }
  *address = text;
  return true;
}

}  // namespace

bool ConnectionWatch::matches(int fd) const {
  sockaddr_storage peer{}, local{};
  socklen_t peer_size = sizeof peer, local_size = sizeof local;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_size) != 0) return false;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_size) != 0) return false;
  std::string peer_address, local_address;
  int peer_port = 0, local_port = 0;
  return endpoint(peer, &peer_address, &peer_port) && endpoint(local, &local_address, &local_port) &&
         peer_port == peer_port_ && local_port == local_port_ && peer_address == peer_address_;
}

int ConnectionWatch::find_socket() const {
  DIR* dir = opendir("/proc/self/fd");
  if (!dir) return -1;
  int found = -1;
  while (const dirent* entry = readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || fd == dirfd(dir)) continue;
    if (matches(static_cast<int>(fd))) {
      found = static_cast<int>(fd);
      break;
    }
  }
  closedir(dir);
  return found;
}

bool ConnectionWatch::client_gone() {
  if (fd_ == -2) fd_ = find_socket();
  if (fd_ < 0) return false;
  // The descriptor is ours while the handler runs (the server closes it after the answer), but
  // check that it is still the same connection before reading its state.
  if (!matches(fd_)) return true;
  pollfd p{fd_, POLLIN | POLLRDHUP, 0};
  if (poll(&p, 1, 0) <= 0) return false;
  if (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) return true;
  if (p.revents & POLLIN) {  // data (a pipelined request) or end of stream
    char byte = 0;
    return recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
  }
  return false;
}

}  // namespace nmt
