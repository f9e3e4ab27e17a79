#include "tests/serve/serve_test_util.h"

#include <ATen/ATen.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "nmt/model/checkpoint.h"
#include "nmt/model/seq2seq.h"
#include "tests/model/model_test_util.h"

namespace nmt::test {

// A checkpoint of a random model over the toy tokenizer (sizes multiples of 16: batch invariant
// bit for bit, docs/search.md), trained on files whose extensions name the languages.
std::string write_tiny_checkpoint(const TempDir& dir) {
  const Tokenizer& tok = toy_tokenizer();
  ModelConfig config = tiny_config(AttentionType::general, DecoderStyle::luong);
  config.embedding_size = config.decoder_hidden_size = config.attention_size = 32;
  config.encoder_hidden_size = 16;
  config.source_vocab_size = config.target_vocab_size = tok.vocab_size();
  at::manual_seed(11);
  Seq2Seq model(config);
  const std::string path = dir.path("tiny.pt");
  save_checkpoint(path, model, tok, tok, "[data]\ntrain-source = \"corpus/train.es\"\ntrain-target = \"corpus/train.en\"\n");
  return path;
}

ServeOptions tiny_options(const std::string& checkpoint) {
  ServeOptions o;
  o.checkpoints = {checkpoint};
  o.port = 0;
  o.http_threads = 24;
  o.search.beam_size = 2;
  o.search.max_length_a = 0;
  o.search.max_length_b = 8;
  o.queue.search_workers = 2;
  o.queue.batch_wait_ms = 2;
  o.limits.max_texts = 8;
  o.limits.max_sentences = 12;
  o.limits.max_characters = 300;
  o.limits.max_body_bytes = 8192;
  o.limits.max_beam = 4;
  o.limits.max_alternatives = 2;
  o.limits.request_timeout_s = 30;
  return o;
}

// Whether `answer` holds a whole HTTP response: its headers and as many body bytes as their
// Content-Length says (none without one).
bool whole_response(const std::string& answer) {
  const std::size_t end = answer.find("\r\n\r\n");
  if (end == std::string::npos) return false;
  std::string headers = answer.substr(0, end);
  std::transform(headers.begin(), headers.end(), headers.begin(), [](unsigned char c) { return std::tolower(c); });
  const std::size_t field = headers.find("\r\ncontent-length:");
  if (field == std::string::npos) return true;
  const std::size_t length = std::strtoull(headers.c_str() + field + 17, nullptr, 10);
  return answer.size() - (end + 4) >= length;
}

// Sends `request` on a raw socket and returns what comes back until the server closes the
// connection (or 10 s pass); with `first_only`, until the first response is whole (the server
// may send its headers and its body in two writes: one recv() is not a response).
std::string raw_exchange(int port, const std::string& request, bool first_only) {
  const int fd = connect_loopback(port);
  if (fd < 0) return "no connection";
  std::string answer;
  if (send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size())) {
    char buffer[4096];
    for (ssize_t n; (n = recv(fd, buffer, sizeof buffer, 0)) > 0;) {
      answer.append(buffer, static_cast<std::size_t>(n));
      if (first_only && whole_response(answer)) break;
    }
  }
  close(fd);
  return answer;
}

int connect_loopback(int port, double receive_timeout_s) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  timeval timeout{static_cast<time_t>(receive_timeout_s),
                  static_cast<suseconds_t>((receive_timeout_s - static_cast<time_t>(receive_timeout_s)) * 1e6)};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

}  // namespace nmt::test
