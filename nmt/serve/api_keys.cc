#include "nmt/serve/api_keys.h"

#include "nmt/core/error.h"
#include "nmt/core/file_io.h"
#include "nmt/core/sha256.h"

namespace nmt {

namespace {
constexpr std::size_t kMaxKeysFileBytes = 1 << 20;
}  // namespace

ApiKeys ApiKeys::from_file(const std::string& path) {
  std::string text;
  try {
    text = read_file(path);
  } catch (const IoError& e) {
    throw IoError(std::string("api-keys: ") + e.what());
  }
  if (text.size() > kMaxKeysFileBytes) throw ConfigError("api-keys: " + path + " is larger than 1 MiB");
  ApiKeys keys;
  std::size_t start = 0, line = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    ++line;
    std::string key = text.substr(start, end - start);
    start = end + 1;
    const auto first = key.find_first_not_of(" \t\r");
    if (first == std::string::npos || key[first] == '#') continue;
    key = key.substr(first, key.find_last_not_of(" \t\r") - first + 1);
    for (const char c : key) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
        throw ConfigError("api-keys: " + path + " line " + std::to_string(line) + ": a key contains a control character");
      }
    }
    keys.digests_.insert(sha256_hex(key));
  }
  if (keys.digests_.empty()) throw ConfigError("api-keys: " + path + " has no keys (one key a line; # starts a comment)");
  return keys;
}

bool ApiKeys::allow(const httplib::Request& req, const nlohmann::json* body) const {
  if (digests_.empty()) return true;
  std::string key;
  const std::string authorization = req.get_header_value("Authorization");
  if (authorization.rfind("Bearer ", 0) == 0) {
    key = authorization.substr(7);
  } else if (req.has_header("X-API-Key")) {
    key = req.get_header_value("X-API-Key");
  } else if (body && body->is_object() && body->contains("api_key") && (*body)["api_key"].is_string()) {
    key = (*body)["api_key"].get<std::string>();
  }
  return !key.empty() && digests_.count(sha256_hex(key)) > 0;
}

}  // namespace nmt
