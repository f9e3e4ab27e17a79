#include "nmt/core/verified_archive.h"

#include <caffe2/serialize/inline_container.h>
#include <nlohmann/json.hpp>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/serialization/import_read.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "nmt/core/error.h"
#include "nmt/core/torch_error.h"
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

std::string save_bytes(torch::jit::Module& module) {
  std::ostringstream out;
  module.save(out);
  return out.str();
}

// The records of an archive's TorchScript code, by their names inside the archive ("code/...",
// "constants.pkl"), with their digests.
void collect_code_digests(const std::string& bytes, std::map<std::string, std::string>& out) {
  std::istringstream in(bytes);
  caffe2::serialize::PyTorchStreamReader reader(&in);
  for (const std::string& name : reader.getAllRecords()) {
    if (name.rfind("code/", 0) != 0 && name != "constants.pkl") continue;
    const auto [data, size] = reader.getRecord(name);
    Sha256 hash;
    hash.update(data.get(), size);
    out[name] = hash.hex_finish();
  }
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
void check_tensors_fit(const std::map<std::string, at::Tensor>& tensors,
                       const std::map<std::string, std::uint64_t>& entries, const std::string& damaged) {
  std::multiset<std::uint64_t> records;
  for (const auto& [name, size] : entries) {
    const auto slash = name.rfind("/data/");
    if (slash != std::string::npos && name.find_first_not_of("0123456789", slash + 6) == std::string::npos) records.insert(size);
  }
  std::set<const void*> seen;
  for (const auto& [name, tensor] : tensors) {
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
  check_tensors_fit(list_archive_tensors(archive), entries, what + " " + path + " is damaged: ");
}

namespace {

// The same walk as collect_digests, over a module: its attributes are the archive's entries.
void collect_module_digests(const torch::jit::Module& module, const std::string& prefix,
                            std::map<std::string, std::string>& out) {
  for (const auto& attribute : module.named_attributes(/*recurse=*/false)) {
    if (prefix.empty() && attribute.name == kDigestsEntry) continue;
    if (attribute.value.isModule()) {
      collect_module_digests(attribute.value.toModule(), prefix + attribute.name + ".", out);
    } else if (attribute.value.isTensor()) {
      out[prefix + attribute.name] = tensor_digest(attribute.value.toTensor());
    } else {
      out[prefix + attribute.name] = value_digest(attribute.value);
    }
  }
}

// Compares the digests computed from an archive (`actual`) with its stored table.
void compare_digests(const c10::IValue& table, const std::map<std::string, std::string>& actual,
                     const std::string& damaged) {
  std::map<std::string, std::string> stored;
  try {
    if (!table.isString()) throw std::runtime_error("not a string");
    stored = nlohmann::json::parse(table.toStringRef()).get<std::map<std::string, std::string>>();
  } catch (const std::exception&) {
    throw DataError(damaged + "its table of checksums does not read");
  }
  for (const auto& [entry, digest] : actual) {
    const auto found = stored.find(entry);
    if (found == stored.end()) throw DataError(damaged + "entry '" + entry + "' has no checksum");
    if (found->second != digest) throw DataError(damaged + "entry '" + entry + "' does not match its SHA-256 checksum");
  }
  for (const auto& [entry, digest] : stored) {
    if (!actual.count(entry)) throw DataError(damaged + "entry '" + entry + "' is missing");
  }
}

}  // namespace

bool verify_digests(torch::serialize::InputArchive& archive, const std::string& path, const std::string& what,
                    const std::string* code_bytes) {
  c10::IValue table;
  if (!archive.try_read(kDigestsEntry, table)) return false;
  std::map<std::string, std::string> actual;
  collect_digests(archive, "", actual);
  if (code_bytes) collect_code_digests(*code_bytes, actual);
  compare_digests(table, actual, what + " " + path + " is damaged: ");
  return true;
}

bool verify_module_digests(const torch::jit::Module& module, const std::string& bytes, const std::string& path,
                           const std::string& what, bool with_code) {
  if (!module.hasattr(kDigestsEntry)) return false;
  std::map<std::string, std::string> actual;
  collect_module_digests(module, "", actual);
  if (with_code) collect_code_digests(bytes, actual);
  compare_digests(module.attr(kDigestsEntry), actual, what + " " + path + " is damaged: ");
  return true;
}

namespace {

void collect_module_tensors(const torch::jit::Module& module, const std::string& prefix,
                            std::map<std::string, at::Tensor>& out) {
  for (const auto& attribute : module.named_attributes(/*recurse=*/false)) {
    if (attribute.value.isModule()) {
      collect_module_tensors(attribute.value.toModule(), prefix + attribute.name + ".", out);
    } else if (attribute.value.isTensor()) {
      out[prefix + attribute.name] = attribute.value.toTensor();
    }
  }
}

// Pickled objects as generic modules: a fresh class per object, its attributes typed by their
// values (what torch::jit::load would take from the archive's code, which is not compiled here).
c10::intrusive_ptr<c10::ivalue::Object> generic_object(const std::shared_ptr<torch::jit::CompilationUnit>& unit,
                                                       const at::StrongTypePtr& type, const c10::IValue& state) {
  if (!state.isGenericDict()) throw std::runtime_error("an object whose state is not a dictionary");
  auto cls = c10::ClassType::create(type.type_->expectRef<c10::ClassType>().name(), unit, /*is_module=*/true);
  const auto dict = state.toGenericDict();
  for (const auto& item : dict) cls->addAttribute(item.key().toStringRef(), item.value().type());
  auto object = c10::ivalue::Object::create(c10::StrongTypePtr(unit, cls), dict.size());
  std::size_t slot = 0;
  for (const auto& item : dict) object->setSlot(slot++, item.value());
  return object;
}

}  // namespace

std::map<std::string, at::Tensor> list_module_tensors(const torch::jit::Module& module) {
  std::map<std::string, at::Tensor> tensors;
  collect_module_tensors(module, "", tensors);
  return tensors;
}

torch::jit::Module read_archive_values(const std::string& bytes, const std::string& path, const std::string& what) {
  const auto entries = check_zip(bytes, what, path);  // before LibTorch parses anything
  c10::IValue root;
  try {
    std::istringstream in(bytes);
    caffe2::serialize::PyTorchStreamReader reader(&in);
    const auto unit = std::make_shared<torch::jit::CompilationUnit>();
    // Classes (__torch__.*) become generic modules; the unpickler also asks for the element types
    // of typed containers ("List[str]"), which are parsed as torch::jit::load parses them.
    const torch::jit::TypeResolver resolve = [unit](const c10::QualifiedName& name) {
      const std::string text = name.qualifiedName();
      if (text.rfind("__torch__.", 0) != 0) {
        return c10::StrongTypePtr(unit, torch::jit::Unpickler::defaultTypeParser(text));
      }
      return c10::StrongTypePtr(unit, c10::ClassType::create(name, unit, /*is_module=*/true));
    };
    const torch::jit::ObjLoader load = [unit](const at::StrongTypePtr& type, const c10::IValue& state) {
      return generic_object(unit, type, state);
    };
    root = torch::jit::readArchiveAndTensors("data", "", "", resolve, load, at::Device(at::kCPU), reader);
  } catch (const std::exception& e) {
    throw DataError(what + " " + path + " is not a readable TorchScript archive (damaged, truncated or another format): " +
                    first_line(e));
  }
  if (!root.isObject()) throw DataError(what + " " + path + " is not a TorchScript module archive");
  torch::jit::Module module(root.toObject());
  check_tensors_fit(list_module_tensors(module), entries, what + " " + path + " is damaged: ");
  return module;
}

std::string serialize_with_digests(torch::jit::Module& module) {
  // Read back as load_checkpoint reads (values only: torch::jit::load would compile the methods a
  // second time), digested by the same walk that verifies them.
  const std::string plain = save_bytes(module);
  std::map<std::string, std::string> digests;
  collect_module_digests(read_archive_values(plain, "archive", "being written"), "", digests);
  collect_code_digests(plain, digests);
  module.setattr(kDigestsEntry, c10::IValue(nlohmann::json(digests).dump()));
  return save_bytes(module);
}

ArchiveReader::ArchiveReader(torch::serialize::InputArchive& archive, std::string what, std::string path)
    : read_([&archive](const std::string& key, c10::IValue& value) { return archive.try_read(key, value); }),
      what_(std::move(what)), path_(std::move(path)) {}

ArchiveReader::ArchiveReader(const torch::jit::Module& module, std::string what, std::string path)
    : read_([module](const std::string& key, c10::IValue& value) {
        if (!module.hasattr(key)) return false;
        value = module.attr(key);
        return true;
      }),
      what_(std::move(what)), path_(std::move(path)) {}

void ArchiveReader::fail(const std::string& message) const { throw DataError(what_ + " " + path_ + ": " + message); }

c10::IValue ArchiveReader::value(const char* key) const {
  c10::IValue value;
  if (!read_(key, value)) fail(std::string("no '") + key + "' entry");
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
  c10::IValue v;
  if (!read_(key, v) || !v.isTensor()) return false;
  tensor = v.toTensor();
  return true;
}

}  // namespace nmt
