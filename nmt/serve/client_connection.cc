#include "nmt/serve/client_connection.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

namespace nmt {

namespace {

constexpr std::size_t kBufferBytes = 16 * 1024;
constexpr std::size_t kMaxAnswerHead = 16 * 1024;  // more is not a head we wrote
constexpr int kPollSliceMs = 100;                   // how often a wait looks at `stopping`

ClientConnection::Clock::duration seconds(double s) {
  return std::chrono::duration_cast<ClientConnection::Clock::duration>(std::chrono::duration<double>(s));
}

int milliseconds_until(ClientConnection::Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - ClientConnection::Clock::now());
  return static_cast<int>(std::clamp<std::int64_t>(left.count(), 0, kPollSliceMs));
}

// poll() for `events` until the deadline, in slices; 1: ready, 0: the deadline passed (or
// `give_up` said so), -1: error.
template <class GiveUp>
int wait_for(int fd, short events, ClientConnection::Clock::time_point deadline, GiveUp give_up) {
  for (;;) {
    if (give_up()) return 0;
    const int wait_ms = milliseconds_until(deadline);
    pollfd p{fd, events, 0};
    const int ready = poll(&p, 1, wait_ms);
    if (ready > 0) return 1;
    if (ready < 0 && errno != EINTR) return -1;
    if (ready == 0 && ClientConnection::Clock::now() >= deadline) return 0;
  }
}

void endpoint_of(const sockaddr_storage& name, std::string& ip, int& port) {
  char text[INET6_ADDRSTRLEN] = {};
  if (name.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&name);
    inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
    port = ntohs(in->sin_port);
  } else if (name.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&name);
    inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text);
    port = ntohs(in6->sin6_port);
  }
  ip = text;
}

bool says_close(std::string head) {
  std::transform(head.begin(), head.end(), head.begin(), [](unsigned char c) { return std::tolower(c); });
  return head.find("\r\nconnection: close\r\n") != std::string::npos;
}

}  // namespace

ClientConnection::ClientConnection(int fd, const ConnectionTimeouts& timeouts, Clock::time_point accepted,
                                   std::function<bool()> stopping)
    : fd_(fd), timeouts_(timeouts), stopping_(std::move(stopping)), started_(Clock::now()), arrival_(accepted),
      phase_started_(started_),
      buffer_(kBufferBytes) {}

ClientConnection::~ClientConnection() { close_now(); }

ClientConnection::Clock::time_point ClientConnection::deadline() const {
  switch (phase_) {
    case Phase::header: return phase_started_ + seconds(timeouts_.header_s);
    case Phase::body: return phase_started_ + seconds(timeouts_.body_s);
    default: return phase_started_ + seconds(timeouts_.body_s);  // cpp-httplib reads nothing else
  }
}

bool ClientConnection::fill() {
  if (fd_ < 0) return false;
  const Clock::time_point until = deadline();
  // A stop ends the wait for a request's headers (it has not begun to be served), not for a body.
  const auto give_up = [this] { return phase_ == Phase::header && stopping_(); };
  for (;;) {
    const int ready = wait_for(fd_, POLLIN, until, give_up);
    if (ready == 0) {
      if (!give_up()) cut_off_ = phase_ == Phase::body ? RequestPart::body : RequestPart::header;
      return false;
    }
    if (ready < 0) return false;
    const ssize_t n = recv(fd_, buffer_.data(), buffer_.size(), 0);
    if (n > 0) {
      begin_ = 0;
      end_ = static_cast<std::size_t>(n);
      return true;
    }
    if (n == 0) return false;  // the client closed its side
    if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) return false;
  }
}

bool ClientConnection::is_readable() const { return begin_ < end_; }

bool ClientConnection::is_writable() const {
  if (fd_ < 0 || cut_off_ != RequestPart::none) return false;
  pollfd p{fd_, POLLOUT, 0};
  return poll(&p, 1, 0) > 0 && (p.revents & POLLOUT);
}

ssize_t ClientConnection::read(char* ptr, size_t size) {
  if (cut_off_ != RequestPart::none) return -1;
  if (begin_ == end_ && !fill()) return cut_off_ != RequestPart::none ? -1 : 0;
  const std::size_t n = std::min(size, end_ - begin_);
  std::memcpy(ptr, buffer_.data() + begin_, n);
  begin_ += n;
  if (phase_ == Phase::body) body_read_ += n;
  return static_cast<ssize_t>(n);
}

void ClientConnection::watch_answer(const char* ptr, std::size_t size) {
  if (phase_ == Phase::answered) return;
  answer_head_.append(ptr, std::min(size, kMaxAnswerHead));
  const std::size_t end = answer_head_.find("\r\n\r\n");
  if (end == std::string::npos) {
    if (answer_head_.size() > kMaxAnswerHead) phase_ = Phase::answered;
    return;
  }
  if (answer_head_.rfind("HTTP/1.1 100 ", 0) == 0) {  // "100 Continue": the answer proper comes later
    answer_head_.erase(0, end + 4);
    return watch_answer("", 0);
  }
  answer_says_close_ = says_close(answer_head_.substr(0, end + 2));
  phase_ = Phase::answered;
}

ssize_t ClientConnection::write(const char* ptr, size_t size) {
  if (fd_ < 0 || cut_off_ != RequestPart::none) return -1;
  watch_answer(ptr, size);
  std::size_t written = 0;
  while (written < size) {
    const Clock::time_point until = Clock::now() + seconds(timeouts_.write_s);
    if (wait_for(fd_, POLLOUT, until, [] { return false; }) <= 0) return written > 0 ? static_cast<ssize_t>(written) : -1;
    const ssize_t n = send(fd_, ptr + written, size - written, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      return written > 0 ? static_cast<ssize_t>(written) : -1;
    }
    written += static_cast<std::size_t>(n);
  }
  return static_cast<ssize_t>(written);
}

void ClientConnection::get_remote_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage name{};
  socklen_t size = sizeof name;
  if (getpeername(fd_, reinterpret_cast<sockaddr*>(&name), &size) == 0) endpoint_of(name, ip, port);
}

void ClientConnection::get_local_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage name{};
  socklen_t size = sizeof name;
  if (getsockname(fd_, reinterpret_cast<sockaddr*>(&name), &size) == 0) endpoint_of(name, ip, port);
}

bool ClientConnection::wait_for_request(bool first) {
  answer_head_.clear();
  answer_says_close_ = false;
  body_expected_ = body_read_ = 0;
  body_length_unknown_ = false;
  cut_off_ = RequestPart::none;
  if (first) {
    phase_ = Phase::header;
    phase_started_ = Clock::now();
    return begin_ < end_ || fill();
  }
  if (begin_ == end_) {  // nothing pipelined: wait for the next request's first byte
    const int ready = wait_for(fd_, POLLIN, Clock::now() + seconds(timeouts_.keep_alive_s),
                               [this] { return stopping_(); });
    if (ready <= 0) return false;
  }
  phase_ = Phase::header;
  phase_started_ = arrival_ = Clock::now();
  return begin_ < end_ || fill();
}

void ClientConnection::begin_body(std::uint64_t content_length, bool length_unknown) {
  phase_ = Phase::body;
  phase_started_ = Clock::now();
  body_expected_ = content_length;
  body_length_unknown_ = length_unknown;
}

bool ClientConnection::client_gone() const {
  if (fd_ < 0) return true;
  pollfd p{fd_, POLLIN | POLLRDHUP, 0};
  if (poll(&p, 1, 0) <= 0) return false;
  if (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) return true;
  if (p.revents & POLLIN) {  // data (a pipelined request) or the end of the stream
    char byte = 0;
    return recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
  }
  return false;
}

bool ClientConnection::reusable() const {
  return fd_ >= 0 && cut_off_ == RequestPart::none && !answer_says_close_ && !body_length_unknown_ &&
         body_read_ >= body_expected_;
}

void ClientConnection::answer_timeout() {
  if (fd_ < 0) return;
  char what[160];
  if (cut_off_ == RequestPart::body) {
    std::snprintf(what, sizeof what, "the request body did not arrive within %g s (--body-timeout)", timeouts_.body_s);
  } else {
    std::snprintf(what, sizeof what, "the request line and headers did not arrive within %g s (--header-timeout)",
                  timeouts_.header_s);
  }
  const std::string body = std::string("{\"error\": \"") + what + "\"}";
  const std::string answer = "HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\nContent-Length: " +
                             std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
  // One try, without waiting: a client too slow to send is not waited for to read.
  (void)send(fd_, answer.data(), answer.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

void ClientConnection::close_gracefully() {
  if (fd_ < 0) return;
  shutdown(fd_, SHUT_WR);
  // A stopping server still lingers (an answer in flight must not be reset), but briefly.
  const bool brief = stopping_() || cut_off_ != RequestPart::none;
  const Clock::time_point until = Clock::now() + seconds(brief ? std::min(1.0, timeouts_.linger_s) : timeouts_.linger_s);
  std::size_t discarded = 0;
  char scratch[16 * 1024];
  while (discarded < timeouts_.linger_bytes) {
    const Clock::time_point quiet = std::min(until, Clock::now() + seconds(timeouts_.linger_quiet_s));
    if (wait_for(fd_, POLLIN, quiet, [] { return false; }) <= 0) break;
    const ssize_t n = recv(fd_, scratch, sizeof scratch, 0);
    if (n == 0) break;  // the client closed too: nothing is lost now
    if (n < 0 && errno != EINTR && errno != EAGAIN) break;
    if (n > 0) discarded += static_cast<std::size_t>(n);
    if (Clock::now() >= until) break;
  }
  close_now();
}

void ClientConnection::close_now() {
  if (fd_ < 0) return;
  ::close(fd_);
  fd_ = -1;
}

}  // namespace nmt
