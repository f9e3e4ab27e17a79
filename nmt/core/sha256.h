// SHA-256 (FIPS 180-4), for the checksums that checkpoints carry (docs/checkpoints.md). The same
// digests come from Python's hashlib.sha256 or `sha256sum`, so a file can be checked without nmt.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace nmt {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, std::size_t size);
  void update(std::string_view bytes) { update(bytes.data(), bytes.size()); }
  std::array<std::uint8_t, 32> finish();  // the object is spent afterwards
  std::string hex_finish();               // lower-case hex of finish()

 private:
  void compress(const std::uint8_t* block);
  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t total_ = 0;
};

/// Lower-case hex SHA-256 of `bytes`.
std::string sha256_hex(std::string_view bytes);

}  // namespace nmt
