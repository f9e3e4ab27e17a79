// nmt-serve's API keys (--api-keys FILE): one key a line; blank lines and lines starting with # are
// skipped, spaces around a key are not part of it. Only the keys' SHA-256 digests are kept, and a
// request's key is compared by its digest, so a comparison's time says nothing about how much of a
// guess was right.
#pragma once

#include <httplib.h>

#include <nlohmann/json.hpp>

#include <set>
#include <string>

namespace nmt {

class ApiKeys {
 public:
  /// No keys: every request is allowed.
  ApiKeys() = default;
  /// IoError or ConfigError ("api-keys: FILE ...") when the file is missing, over 1 MiB, holds a
  /// control character or no key at all.
  static ApiKeys from_file(const std::string& path);

  /// Whether the request carries one of the keys: `Authorization: Bearer KEY`, `X-API-Key: KEY`, or
  /// (LibreTranslate's way) an "api_key" string in its JSON or form `body` (may be null).
  bool allow(const httplib::Request& req, const nlohmann::json* body) const;

 private:
  std::set<std::string> digests_;
};

}  // namespace nmt
