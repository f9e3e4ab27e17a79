// nmt-serve under clients that misbehave at the socket: bodies far over the limit sent whole before
// the answer is read (lingering close), and hundreds of connections that send part of a request
// and wait (header and body time limits). Also the connection pool's threads, started as needed.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "nmt/serve/connection_pool.h"
#include "tests/serve/serve_test_util.h"

namespace nmt {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Writes all of `data` (blocking), as a client that sends its whole request before it reads.
bool send_all(int fd, const std::string& data) {
  std::size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

// Everything the server sends until it closes (or the socket's receive timeout passes); "" and
// `reset` set when the connection was reset instead.
std::string receive_all(int fd, bool* reset) {
  std::string answer;
  char buffer[4096];
  *reset = false;
  for (;;) {
    const ssize_t n = recv(fd, buffer, sizeof buffer, 0);
    if (n > 0) {
      answer.append(buffer, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == ECONNRESET) *reset = true;
    return answer;
  }
}

std::string metric_line(test::RunningServer& server, const std::string& name) {
  auto metrics = server.client().Get("/metrics");
  if (!metrics) return "no answer";
  const std::size_t at = metrics->body.find("\n" + name + " ");
  return at == std::string::npos ? "missing" : metrics->body.substr(at + 1, metrics->body.find('\n', at + 1) - at - 1);
}

class SlowClients : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::TempDir;
    checkpoint_ = test::write_tiny_checkpoint(*dir_);
  }
  static void TearDownTestSuite() { delete dir_; }
  static test::TempDir* dir_;
  static std::string checkpoint_;
};
test::TempDir* SlowClients::dir_ = nullptr;
std::string SlowClients::checkpoint_;

// A client that writes a body far over --max-body-bytes before reading (as Python's urllib and
// requests do) reads the 413 and its JSON error, not a reset; the body is not taken for a next
// request. 4 MB is more than the loopback's socket buffers hold, so without the lingering close
// the server's close finds unread bytes and resets the connection.
TEST_F(SlowClients, AClientThatSendsAWholeBodyTooLargeReadsThe413) {
  test::RunningServer server(test::tiny_options(checkpoint_));
  for (const std::size_t bytes : {std::size_t{1200000}, std::size_t{4000000}}) {
    const std::string body = json({{"text", std::string(bytes, 'a')}}).dump();
    const int fd = test::connect_loopback(server.port());
    ASSERT_GE(fd, 0);
    const bool sent = send_all(fd, "POST /v1/translate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                   "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
    bool reset = false;
    const std::string answer = receive_all(fd, &reset);
    close(fd);
    EXPECT_TRUE(sent) << bytes << " bytes: the server closed before the body was sent";
    EXPECT_FALSE(reset) << bytes << " bytes: the connection was reset";
    EXPECT_EQ(answer.rfind("HTTP/1.1 413", 0), 0u) << answer.substr(0, 200);
    EXPECT_NE(answer.find("--max-body-bytes"), std::string::npos) << answer.substr(0, 400);
    EXPECT_EQ(answer.find("HTTP/1.1", 10), std::string::npos) << "the body was read as another request: " << answer;
  }
  // The same through cpp-httplib's client, and the server still answers.
  auto response = server.client().Post("/v1/translate", json({{"text", std::string(2000000, 'a')}}).dump(),
                                       "application/json");
  ASSERT_TRUE(response) << "no answer: " << httplib::to_string(response.error());
  EXPECT_EQ(response->status, 413);
  auto health = server.client().Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
}

// 256 connections send headers and half a body, 64 more half their headers, and wait: /health and
// a translation are answered within 2 s meanwhile; each slow one is cut off with 408 at its limit
// and counted in /metrics by part.
TEST_F(SlowClients, SlowHeadersAndBodiesAreCutOffAndOthersAreServed) {
  ServeOptions options = test::tiny_options(checkpoint_);
  options.http_threads = ServeOptions().http_threads;  // the default
  options.limits.header_timeout_s = 1.5;
  options.limits.body_timeout_s = 1.5;
  test::RunningServer server(options);
  const std::string body = R"({"text": "Luz."})";
  std::vector<int> slow_bodies, slow_headers;
  for (int i = 0; i < 256; ++i) {
    const int fd = test::connect_loopback(server.port());
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(send_all(fd, "POST /v1/translate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
                                 std::to_string(body.size()) + "\r\n\r\n" + body.substr(0, body.size() / 2)));
    slow_bodies.push_back(fd);
  }
  for (int i = 0; i < 64; ++i) {
    const int fd = test::connect_loopback(server.port());
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(send_all(fd, "POST /v1/translate HTTP/1.1\r\nHost: x\r\nContent-Le"));
    slow_headers.push_back(fd);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // all are in the server's hands
  auto start = Clock::now();
  auto health = server.client().Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_LT(seconds_since(start), 2.0) << "/health waited behind the slow clients";
  start = Clock::now();
  auto translated = server.client().Post("/v1/translate", body, "application/json");
  ASSERT_TRUE(translated);
  EXPECT_EQ(translated->status, 200) << translated->body;
  EXPECT_LT(seconds_since(start), 2.0) << "a translation waited behind the slow clients";

  // Each slow client is told 408 once its limit passes, then closed.
  std::size_t told = 0;
  for (const int fd : slow_bodies) {
    bool reset = false;
    const std::string answer = receive_all(fd, &reset);
    close(fd);
    told += answer.rfind("HTTP/1.1 408", 0) == 0 && answer.find("--body-timeout") != std::string::npos;
  }
  for (const int fd : slow_headers) {
    bool reset = false;
    const std::string answer = receive_all(fd, &reset);
    close(fd);
    told += answer.rfind("HTTP/1.1 408", 0) == 0 && answer.find("--header-timeout") != std::string::npos;
  }
  EXPECT_EQ(told, 256u + 64u);
  EXPECT_EQ(metric_line(server, "nmt_serve_cut_offs_total{part=\"body\"}"), "nmt_serve_cut_offs_total{part=\"body\"} 256");
  EXPECT_EQ(metric_line(server, "nmt_serve_cut_offs_total{part=\"header\"}"),
            "nmt_serve_cut_offs_total{part=\"header\"} 64");
}

// A client that trickles its headers, a byte at a time within cpp-httplib's per-read limit, is cut
// off at --header-timeout all the same: the limit is on the whole, not on each read.
TEST_F(SlowClients, ATrickleOfHeadersIsCutOffAtTheLimit) {
  ServeOptions options = test::tiny_options(checkpoint_);
  options.limits.header_timeout_s = 1;
  test::RunningServer server(options);
  const int fd = test::connect_loopback(server.port());
  ASSERT_GE(fd, 0);
  const std::string head = "GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: " + std::string(100, 'a');
  const auto start = Clock::now();
  std::size_t sent = 0;
  while (sent < head.size() && seconds_since(start) < 4 && send(fd, head.data() + sent, 1, MSG_NOSIGNAL) == 1) {
    ++sent;
    std::this_thread::sleep_for(std::chrono::milliseconds(40));
  }
  bool reset = false;
  const std::string answer = receive_all(fd, &reset);
  close(fd);
  EXPECT_LT(seconds_since(start), 3.0);
  EXPECT_EQ(answer.rfind("HTTP/1.1 408", 0), 0u) << answer;
}

// A kept-alive connection carries several requests; one whose body was never read (refused early)
// is closed after its answer.
TEST_F(SlowClients, AConnectionIsReusedOnlyWhenItsBodyWasRead) {
  test::RunningServer server(test::tiny_options(checkpoint_));
  const std::string two = "GET /health HTTP/1.1\r\nHost: x\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  const std::string both = test::raw_exchange(server.port(), two);
  EXPECT_EQ(both.rfind("HTTP/1.1 200", 0), 0u) << both;
  EXPECT_NE(both.find("HTTP/1.1 200", 10), std::string::npos) << "the pipelined second request was lost: " << both;
  const std::string refused = test::raw_exchange(
      server.port(), "POST /v1/translate HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" + std::string(5000, '{'));
  EXPECT_EQ(refused.rfind("HTTP/1.1 413", 0), 0u) << refused;
  EXPECT_EQ(refused.find("HTTP/1.1", 10), std::string::npos) << "the unread body was parsed: " << refused;
}

// Threads start when connections need them, never more than the limit, and end when idle.
TEST(ConnectionPoolThreads, StartAsNeededUpToTheLimitAndEndWhenIdle) {
  ConnectionPool pool(3, std::chrono::milliseconds(200));
  EXPECT_EQ(pool.threads(), 0u);
  std::atomic<int> running{0}, done{0};
  std::atomic<bool> release{false};
  for (int i = 0; i < 5; ++i) {
    pool.enqueue([&] {
      ++running;
      while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      ++done;
    });
  }
  for (int i = 0; i < 200 && running < 3; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(running.load(), 3) << "three threads, two connections waiting";
  EXPECT_EQ(pool.threads(), 3u);
  release = true;
  for (int i = 0; i < 400 && done < 5; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(done.load(), 5);
  for (int i = 0; i < 400 && pool.threads() > 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(pool.threads(), 0u) << "idle threads did not end";
  pool.enqueue([&] { ++done; });  // a new thread after all ended
  pool.shutdown();
  EXPECT_EQ(done.load(), 6);
}

}  // namespace
}  // namespace nmt
