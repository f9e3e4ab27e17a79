#include "nmt/core/verified_archive.h"

#include <nlohmann/json.hpp>

#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "nmt/core/error.h"
#include "nmt/core/file_io.h"
#include "nmt/core/sha256.h"
#include "nmt/core/zip_check.h"

namespace nmt {
namespace {

std::string tensor_digest(const at::Tensor& tensor) {
  const at::Tensor cpu = tensor.to(at::kCPU).contiguous();
  Sha256 hash;
  hash.update(cpu.data_ptr(), static_cast<std::size_t>(cpu.numel()) * cpu.element_size());
  return hash.hex_finish();
}

// A canonical byte form of a value, the same in every LibTorch version (printed forms are not).
void append_canonical(const c10::IValue& value, std::string& out) {
  if (value.isString()) {
    out += value.toStringRef();
  } else if (value.isInt()) {
    out += std::to_string(value.toInt());
  } else if (value.isBool()) {
    out += value.toBool() ? "true" : "false";
  } else if (value.isDouble()) {  // the IEEE-754 bit pattern, little-endian
    const double number = value.toDouble();
    char bytes[sizeof(double)];
    std::memcpy(bytes, &number, sizeof(double));
    out.append(bytes, sizeof(double));
  } else if (value.isNone()) {
    out += "None";
  } else if (value.isTensor()) {
    const at::Tensor cpu = value.toTensor().to(at::kCPU).contiguous();
    out.append(static_cast<const char*>(cpu.data_ptr()), static_cast<std::size_t>(cpu.numel()) * cpu.element_size());
  } else if (value.isTuple() || value.isList()) {
    out += '[';
    const auto elements = value.isTuple() ? value.toTupleRef().elements().vec() : value.toListRef().vec();
    for (const auto& element : elements) {
      append_canonical(element, out);
      out += ',';
    }
    out += ']';
  } else {
    out += value.tagKind();  // a kind nmt does not store: its kind at least
  }
}

std::string value_digest(const c10::IValue& value) {
  if (value.isString()) return sha256_hex(value.toStringRef());
  std::string canonical;
  append_canonical(value, canonical);
  return sha256_hex(canonical);
}

// Every entry of `archive` and its sub-archives by dotted path, with its digest.
void collect_digests(torch::serialize::InputArchive& archive, const std::string& prefix,
                     std::map<std::string, std::string>& out) {
  for (const auto& key : archive.keys()) {
    if (prefix.empty() && key == kDigestsEntry) continue;
    torch::serialize::InputArchive child;
    if (archive.try_read(key, child)) {
      collect_digests(child, prefix + key + ".", out);
      continue;
    }
    at::Tensor tensor;
    if (archive.try_read(key, tensor) || archive.try_read(key, tensor, /*is_buffer=*/true)) {
      out[prefix + key] = tensor_digest(tensor);
      continue;
    }
    c10::IValue value;
    if (archive.try_read(key, value)) out[prefix + key] = value_digest(value);
  }
}

std::string save_bytes(torch::serialize::OutputArchive& archive) {
  std::string bytes;
  archive.save_to([&bytes](const void* data, std::size_t size) {
    bytes.append(static_cast<const char*>(data), size);
    return size;
  });
  return bytes;
}

}  // namespace

std::string serialize_with_digests(torch::serialize::OutputArchive& archive) {
  // Digests of what a reader will read back: serialise, read, then add the table.
  const std::string plain = save_bytes(archive);
  torch::serialize::InputArchive reread;
  reread.load_from(plain.data(), plain.size(), at::kCPU);
  std::map<std::string, std::string> digests;
  collect_digests(reread, "", digests);
  archive.write(kDigestsEntry, c10::IValue(nlohmann::json(digests).dump()));
  return save_bytes(archive);
}

namespace {

// True when every element of `t` lies inside its storage (LibTorch 1.13's unpickler does not check).
bool fits_storage(const at::Tensor& t) {
  if (t.numel() == 0) return true;
  std::int64_t last = t.storage_offset();  // index of the last element in the storage
  bool bad = last < 0;
  for (std::int64_t d = 0; d < t.dim() && !bad; ++d) {
    std::int64_t extent = 0;
    bad = t.stride(d) < 0 || __builtin_mul_overflow(t.size(d) - 1, t.stride(d), &extent) ||
          __builtin_add_overflow(last, extent, &last);
  }
  return !bad && static_cast<std::uint64_t>(last) < t.storage().nbytes() / static_cast<std::uint64_t>(t.element_size());
}

void collect_tensors(torch::serialize::InputArchive& archive, const std::string& prefix,
                     std::map<std::string, at::Tensor>& out) {
  for (const auto& key : archive.keys()) {
    torch::serialize::InputArchive child;
    if (archive.try_read(key, child)) {
      collect_tensors(child, prefix + key + ".", out);
      continue;
    }
    at::Tensor tensor;
    if (archive.try_read(key, tensor) || archive.try_read(key, tensor, /*is_buffer=*/true)) out[prefix + key] = tensor;
  }
}

// Each tensor lies inside its storage, and each storage has a data record of its size: LibTorch
// takes a storage's size from the pickle whatever the size of its record, so a short record
// would be read past its end (found by fuzzing).
void check_tensors_fit(torch::serialize::InputArchive& archive, const std::map<std::string, std::uint64_t>& entries,
                       const std::string& damaged) {
  std::multiset<std::uint64_t> records;
  for (const auto& [name, size] : entries) {
    const auto slash = name.rfind("/data/");
    if (slash != std::string::npos && name.find_first_not_of("0123456789", slash + 6) == std::string::npos) records.insert(size);
  }
  std::set<const void*> seen;
  for (const auto& [name, tensor] : list_archive_tensors(archive)) {
    if (!tensor.has_storage()) continue;
    if (!fits_storage(tensor)) throw DataError(damaged + "entry '" + name + "' does not fit its data");
    if (!seen.insert(tensor.storage().unsafeGetStorageImpl()).second) continue;
    const auto record = records.find(tensor.storage().nbytes());
    if (record == records.end()) throw DataError(damaged + "entry '" + name + "' has no data record of its size");
    records.erase(record);
  }
}

}  // namespace

std::map<std::string, at::Tensor> list_archive_tensors(torch::serialize::InputArchive& archive) {
  std::map<std::string, at::Tensor> tensors;
  collect_tensors(archive, "", tensors);
  return tensors;
}

std::string read_archive_file(const std::string& path, const std::string& what) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw IoError("cannot open " + what + " " + path + ": " +
                  (std::filesystem::exists(path, ec) ? "not a regular file" : "No such file or directory"));
  }
  return read_file(path);
}

void load_archive(torch::serialize::InputArchive& archive, const std::string& path, const std::string& what) {
  load_archive_from_bytes(archive, read_archive_file(path, what), path, what);
}

void load_archive_from_bytes(torch::serialize::InputArchive& archive, const std::string& bytes, const std::string& path,
                             const std::string& what) {
  // Before LibTorch parses anything: its parser crashes on some damaged code entries.
  const auto entries = check_zip(bytes, what, path);
  try {
    archive.load_from(bytes.data(), bytes.size(), at::kCPU);
  } catch (const std::exception& e) {  // LibTorch's, or TorchScript's parser on a damaged pickle: several lines, no file
    throw DataError(what + " " + path + " is not a readable TorchScript archive (damaged, truncated or another format): " +
                    first_line(e));
  }
  check_tensors_fit(archive, entries, what + " " + path + " is damaged: ");
}

bool verify_digests(torch::serialize::InputArchive& archive, const std::string& path, const std::string& what) {
  c10::IValue table;
  if (!archive.try_read(kDigestsEntry, table)) return false;
  const std::string damaged = what + " " + path + " is damaged: ";
  std::map<std::string, std::string> stored;
  try {
    if (!table.isString()) throw std::runtime_error("not a string");
    stored = nlohmann::json::parse(table.toStringRef()).get<std::map<std::string, std::string>>();
  } catch (const std::exception&) {
    throw DataError(damaged + "its table of checksums does not read");
  }
  std::map<std::string, std::string> actual;
  collect_digests(archive, "", actual);
  for (const auto& [entry, digest] : actual) {
    const auto found = stored.find(entry);
    if (found == stored.end()) throw DataError(damaged + "entry '" + entry + "' has no checksum");
    if (found->second != digest) throw DataError(damaged + "entry '" + entry + "' does not match its SHA-256 checksum");
  }
  for (const auto& [entry, digest] : stored) {
    if (!actual.count(entry)) throw DataError(damaged + "entry '" + entry + "' is missing");
  }
  return true;
}

ArchiveReader::ArchiveReader(torch::serialize::InputArchive& archive, std::string what, std::string path)
    : archive_(archive), what_(std::move(what)), path_(std::move(path)) {}

void ArchiveReader::fail(const std::string& message) const { throw DataError(what_ + " " + path_ + ": " + message); }

c10::IValue ArchiveReader::value(const char* key) const {
  c10::IValue value;
  if (!archive_.try_read(key, value)) fail(std::string("no '") + key + "' entry");
  return value;
}

std::int64_t ArchiveReader::integer(const char* key) const {
  const c10::IValue v = value(key);
  if (!v.isInt()) fail(std::string("no '") + key + "' entry");
  return v.toInt();
}

double ArchiveReader::real(const char* key) const {
  const c10::IValue v = value(key);
  if (!v.isDouble()) fail(std::string("no '") + key + "' entry");
  return v.toDouble();
}

std::string ArchiveReader::string(const char* key) const {
  const c10::IValue v = value(key);
  if (!v.isString()) fail(std::string("no '") + key + "' entry");
  return v.toStringRef();
}

bool ArchiveReader::try_tensor(const std::string& key, at::Tensor& tensor) const {
  return archive_.try_read(key, tensor, /*is_buffer=*/true);
}

void ArchiveReader::archive(const char* key, torch::serialize::InputArchive& sub) const {
  if (!archive_.try_read(key, sub)) fail(std::string("no '") + key + "' entry");
}

}  // namespace nmt
