// Checks of a zip archive's bytes that LibTorch's reader skips: every stored entry's CRC-32, and
// the directory's structure. Used before an archive is parsed (nmt/core/verified_archive.h).
//
// Why: LibTorch parses a checkpoint's TorchScript code and pickle before nmt can read anything,
// never checks the CRCs the zip carries, and a flipped byte in that code crashes its parser
// (SIGSEGV, found by fuzzing). The CRCs cover every entry, code included.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace nmt {

/// The zip's entries, name -> uncompressed size, after checking that the directory is sound and
/// every stored entry's data matches its CRC-32. Throws DataError "<what> <name> is damaged: ...".
std::map<std::string, std::uint64_t> check_zip(std::string_view bytes, const std::string& what, const std::string& name);

}  // namespace nmt
