#include "nmt/core/zip_check.h"

#include <zlib.h>

#include "nmt/core/error.h"

namespace nmt {
namespace {

class Reader {
 public:
  Reader(std::string_view bytes, std::string damaged) : bytes_(bytes), damaged_(std::move(damaged)) {}
  [[noreturn]] void fail(const std::string& what) const { throw DataError(damaged_ + what); }
  std::uint64_t u(std::uint64_t at, int width) const {
    if (at > bytes_.size() || bytes_.size() - at < static_cast<std::uint64_t>(width)) fail("the zip directory points outside the file");
    std::uint64_t value = 0;
    for (int i = width - 1; i >= 0; --i) value = value << 8 | static_cast<unsigned char>(bytes_[at + static_cast<std::uint64_t>(i)]);
    return value;
  }
  std::string_view slice(std::uint64_t at, std::uint64_t size) const {
    if (at > bytes_.size() || bytes_.size() - at < size) fail("the zip directory points outside the file");
    return bytes_.substr(at, size);
  }
  std::size_t size() const { return bytes_.size(); }

 private:
  std::string_view bytes_;
  std::string damaged_;
};

constexpr std::uint32_t kEndOfDirectory = 0x06054b50, kZip64End = 0x06064b50, kZip64Locator = 0x07064b50;
constexpr std::uint32_t kDirectoryEntry = 0x02014b50, kLocalHeader = 0x04034b50;

}  // namespace

std::map<std::string, std::uint64_t> check_zip(std::string_view bytes, const std::string& what, const std::string& name) {
  const Reader zip(bytes, what + " " + name + " is damaged: ");
  // The end-of-directory record: the last 22 bytes, or earlier by a comment of up to 64 KiB.
  std::uint64_t end = std::string_view::npos;
  for (std::uint64_t at = bytes.size() >= 22 ? bytes.size() - 22 : 0; bytes.size() >= 22; --at) {
    if (zip.u(at, 4) == kEndOfDirectory) {
      end = at;
      break;
    }
    if (at == 0 || bytes.size() - at > 22 + 65535) break;
  }
  if (end == std::string_view::npos) zip.fail("not a zip file (no end of directory; truncated?)");
  std::uint64_t entries = zip.u(end + 10, 2), directory_size = zip.u(end + 12, 4), directory = zip.u(end + 16, 4);
  if (entries == 0xFFFF || directory_size == 0xFFFFFFFF || directory == 0xFFFFFFFF) {  // zip64
    if (end < 20 || zip.u(end - 20, 4) != kZip64Locator) zip.fail("a zip64 archive without its locator");
    const std::uint64_t end64 = zip.u(end - 20 + 8, 8);
    if (zip.u(end64, 4) != kZip64End) zip.fail("a zip64 archive without its end record");
    entries = zip.u(end64 + 32, 8);
    directory_size = zip.u(end64 + 40, 8);
    directory = zip.u(end64 + 48, 8);
  }
  std::map<std::string, std::uint64_t> sizes;
  std::uint64_t at = directory;
  for (std::uint64_t i = 0; i < entries; ++i) {
    if (zip.u(at, 4) != kDirectoryEntry) zip.fail("zip directory entry " + std::to_string(i) + " is broken");
    const std::uint64_t method = zip.u(at + 10, 2), crc = zip.u(at + 16, 4);
    std::uint64_t compressed = zip.u(at + 20, 4), size = zip.u(at + 24, 4), local = zip.u(at + 42, 4);
    const std::uint64_t name_length = zip.u(at + 28, 2), extra_length = zip.u(at + 30, 2), comment = zip.u(at + 32, 2);
    const std::string entry(zip.slice(at + 46, name_length));
    // Zip64 sizes and offset, for the fields set to all ones, in this order.
    for (std::uint64_t e = at + 46 + name_length; e + 4 <= at + 46 + name_length + extra_length;) {
      const std::uint64_t id = zip.u(e, 2), length = zip.u(e + 2, 2);
      if (id == 0x0001) {
        std::uint64_t field = e + 4;
        if (size == 0xFFFFFFFF) size = zip.u(field, 8), field += 8;
        if (compressed == 0xFFFFFFFF) compressed = zip.u(field, 8), field += 8;
        if (local == 0xFFFFFFFF) local = zip.u(field, 8);
      }
      e += 4 + length;
    }
    if (zip.u(local, 4) != kLocalHeader) zip.fail("zip entry '" + entry + "' has no local header");
    const std::uint64_t data = local + 30 + zip.u(local + 26, 2) + zip.u(local + 28, 2);
    const std::string_view stored = zip.slice(data, compressed);
    if (method == 0) {  // stored, as PyTorch writes every entry: the CRC covers exactly these bytes
      if (compressed != size) zip.fail("zip entry '" + entry + "' has two sizes");
      uLong actual = crc32(0L, Z_NULL, 0);
      for (std::uint64_t done = 0; done < stored.size();) {  // crc32 takes at most 4 GiB at once
        const auto chunk = static_cast<uInt>(std::min<std::uint64_t>(stored.size() - done, 1u << 30));
        actual = crc32(actual, reinterpret_cast<const Bytef*>(stored.data() + done), chunk);
        done += chunk;
      }
      if (actual != crc) zip.fail("zip entry '" + entry + "' does not match its CRC-32");
    }
    sizes[entry] = size;
    at += 46 + name_length + extra_length + comment;
  }
  (void)directory_size;
  return sizes;
}

}  // namespace nmt
