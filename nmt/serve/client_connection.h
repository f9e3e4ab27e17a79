// One client's connection as cpp-httplib reads and writes it (an httplib::Stream over the socket),
// with the time limits cpp-httplib lacks. cpp-httplib's own stream limits each read to 5 s, so a
// client that sends a byte every few seconds holds its thread for ever; here a request's line and
// headers must arrive within `header_s` of their first byte (of the connection's start for its
// first request), and its body within `body_s` of the headers' end. Past a limit the read fails,
// the request is cut off (cut_off() says which part was late), and the client is told 408.
//
// Closing: a server that answers early (413 for a body announced too large) and closes while the
// client is still sending makes the kernel reset the connection, and the client sees a broken
// pipe instead of the answer. close_gracefully() does what nginx calls a lingering close: it ends
// our side (FIN after the answer), then reads and discards what the client still sends, within
// bounds of time and bytes, before closing.
#pragma once

#include <httplib.h>

#include <functional>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace nmt {

struct ConnectionTimeouts {
  double header_s = 10;      // a request's line and headers
  double body_s = 10;        // its body
  double keep_alive_s = 5;   // the wait for the next request on a kept-alive connection
  double write_s = 5;        // a write's wait for room in the socket's buffer
  double linger_s = 10;      // a lingering close reads for at most this long in all,
  double linger_quiet_s = 2; // and stops once the client has sent nothing for this long,
  std::size_t linger_bytes = std::size_t{64} << 20;  // or after this many bytes
};

enum class RequestPart { none, header, body };

class ClientConnection : public httplib::Stream {
 public:
  using Clock = std::chrono::steady_clock;

  /// Takes over `fd` (closed by the destructor, or by a close_*()), accepted at `accepted`.
  /// `stopping()` true: the server is stopping; a request not begun by then is not waited for.
  ClientConnection(int fd, const ConnectionTimeouts& timeouts, Clock::time_point accepted,
                   std::function<bool()> stopping);
  ~ClientConnection() override;
  ClientConnection(const ClientConnection&) = delete;
  ClientConnection& operator=(const ClientConnection&) = delete;

  // httplib::Stream
  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  int socket() const override { return fd_; }

  /// Before each request: waits for its first byte (the connection's first request: the header
  /// limit counts from now; later ones: up to keep_alive_s, and the limit counts from the byte).
  /// False when none comes (the client closed, went quiet, or the server is stopping); a client
  /// that went quiet on its first request is cut off (cut_off() == header).
  bool wait_for_request(bool first);
  /// The request's headers are read; its body of `content_length` bytes (none: 0) comes next.
  void begin_body(std::uint64_t content_length, bool length_unknown);
  /// After the answer: whether the connection can carry another request (the body was read
  /// whole, and the answer did not say "Connection: close").
  bool reusable() const;
  /// When the current request arrived: its connection's accept for the first (the wait for a
  /// thread is the client's too), its first byte for a later one.
  Clock::time_point request_arrival() const { return arrival_; }
  /// True once the client has closed its side or the connection broke (a request waiting for its
  /// translation then leaves the queue). Data the client sent meanwhile (a pipelined request) is
  /// not an end. Any thread may ask while the connection's thread waits for the answer.
  bool client_gone() const;
  /// The part of the last request that was late, or none.
  RequestPart cut_off() const { return cut_off_; }
  /// Tells a cut-off client 408 (best effort: a client that does not read gets nothing).
  void answer_timeout();

  /// A lingering close (above): FIN, then read and discard within the bounds, then close. A
  /// cut-off client gets at most a second of it: time to read its 408, no more of the thread's.
  void close_gracefully();
  void close_now();

 private:
  enum class Phase { idle, header, body, answered };
  Clock::time_point deadline() const;
  bool fill();  // reads what the socket has into the buffer within the deadline; false: none
  void watch_answer(const char* ptr, std::size_t size);

  int fd_;
  ConnectionTimeouts timeouts_;
  std::function<bool()> stopping_;
  Clock::time_point started_, arrival_;
  Phase phase_ = Phase::idle;
  Clock::time_point phase_started_;
  RequestPart cut_off_ = RequestPart::none;
  std::vector<char> buffer_;
  std::size_t begin_ = 0, end_ = 0;         // unread bytes: buffer_[begin_, end_)
  std::uint64_t body_expected_ = 0, body_read_ = 0;
  bool body_length_unknown_ = false;
  std::string answer_head_;                 // the answer's status line and headers, as written
  bool answer_says_close_ = false;
};

}  // namespace nmt
