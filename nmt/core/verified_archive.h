// TorchScript archives (the files torch::save writes) that carry a SHA-256 digest of every entry,
// and one way to load any archive that names the file in every error.
//
// Why: LibTorch does not check a zip entry's CRC when it reads one, so a flipped byte in a stored
// tensor or string loads silently and changes results. The digests are computed over what an
// archive reads back (a tensor's bytes, a string's bytes, an integer's decimal text, a double's
// 8 bytes, a tuple's elements in order: forms that do not change between LibTorch versions),
// stored as one JSON string entry "digests" {"entry.path": "hex"}, and compared on load.
#pragma once

#include <torch/serialize/input-archive.h>
#include <torch/serialize/output-archive.h>

#include <functional>
#include <map>
#include <string>

#include "nmt/core/error.h"
#include "nmt/core/torch_error.h"

namespace nmt {

/// The archive entry that holds the digests.
constexpr const char* kDigestsEntry = "digests";

/// Adds the "digests" entry to `archive` and returns the bytes of the whole archive.
std::string serialize_with_digests(torch::serialize::OutputArchive& archive);

/// The same for an archive built as a TorchScript module with methods (a checkpoint): `module` must
/// have a string attribute "digests" already (its value is replaced, so that the class and its code
/// stay the same), and the table also covers the code: every "code/..." record and "constants.pkl",
/// by the bytes stored.
std::string serialize_with_digests(torch::jit::Module& module);

/// Reads the archive at `path` onto the CPU. Every failure (missing, not a zip, a damaged zip or
/// pickle) is one-line DataError or IoError naming `what` (e.g. "checkpoint") and the file.
void load_archive(torch::serialize::InputArchive& archive, const std::string& path, const std::string& what);

/// The bytes of the archive file at `path`; IoError naming `what` and the file when it is missing
/// or not a regular file.
std::string read_archive_file(const std::string& path, const std::string& what);

/// As load_archive, from the file's bytes (read elsewhere: rank 0 of a training group reads the
/// files and sends their bytes to the others); `path` names the file in messages.
void load_archive_from_bytes(torch::serialize::InputArchive& archive, const std::string& bytes, const std::string& path,
                             const std::string& what);

/// Every tensor (parameter or buffer) in `archive` and its sub-archives, by dotted path.
std::map<std::string, at::Tensor> list_archive_tensors(torch::serialize::InputArchive& archive);

/// Compares every entry with its stored digest; throws DataError "WHAT PATH is damaged: ..."
/// naming the first entry that differs, is missing, or has no digest. Returns false, checking
/// nothing, when the archive has no "digests" entry (files written before they existed). With
/// `code_bytes` (the archive's file), its code records are entries too (archives written by the
/// module form of serialize_with_digests).
bool verify_digests(torch::serialize::InputArchive& archive, const std::string& path, const std::string& what,
                    const std::string* code_bytes = nullptr);

/// An archive's values without its code: the pickled objects read as generic modules (each object's
/// attributes in stored order, tensors on the CPU), no TorchScript compiled. What a reader that only
/// needs the data uses (a checkpoint's methods cost tens of milliseconds to compile). Checks the
/// zip first, and that every tensor fits its data; failures are one-line DataErrors as
/// load_archive_from_bytes gives them.
torch::jit::Module read_archive_values(const std::string& bytes, const std::string& path, const std::string& what);

/// Every tensor of a module and its submodules by dotted path.
std::map<std::string, at::Tensor> list_module_tensors(const torch::jit::Module& module);

/// verify_digests for an archive held as a module (read_archive_values or torch::jit::load) from
/// the file's `bytes`; with `with_code`, the code records are entries too. Returns false, checking
/// nothing, when there is no "digests" attribute.
bool verify_module_digests(const torch::jit::Module& module, const std::string& bytes, const std::string& path,
                           const std::string& what, bool with_code);

/// Typed entries of a loaded archive (an InputArchive, or a module from read_archive_values). Every
/// failure is a one-line DataError that names the file: "WHAT PATH: no 'KEY' entry".
class ArchiveReader {
 public:
  ArchiveReader(torch::serialize::InputArchive& archive, std::string what, std::string path);
  ArchiveReader(const torch::jit::Module& module, std::string what, std::string path);
  std::int64_t integer(const char* key) const;
  double real(const char* key) const;
  std::string string(const char* key) const;
  /// A tensor entry (a buffer), or false when there is none.
  bool try_tensor(const std::string& key, at::Tensor& tensor) const;
  /// DataError "WHAT PATH: message".
  [[noreturn]] void fail(const std::string& message) const;

 private:
  c10::IValue value(const char* key) const;
  std::function<bool(const std::string&, c10::IValue&)> read_;  // an entry by key, false when absent
  std::string what_, path_;
};

/// Returns read() (which parses the file at `path`); an exception that is not the toolkit's own
/// (what LibTorch says about a damaged archive) becomes DataError "WHAT PATH is damaged: <its first
/// line>".
template <typename Read>
auto read_archive_reporting_damage(const std::string& what, const std::string& path, Read read) -> decltype(read()) {
  try {
    return read();
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw DataError(what + " " + path + " is damaged: " + first_line(e));
  }
}

}  // namespace nmt
