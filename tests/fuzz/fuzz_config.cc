// Fuzz target: the programs' TOML configuration files (apps/common/config_file.h), read through
// CLI11 as `nmt-train --config FILE` reads them.
//
// Input: the configuration file. The options are nmt-train's (apps/common/train_options.h: every
// value type it uses, top-level keys and [sections], a flag that is not configurable), so the
// configs/*.toml files are valid seeds. A file either parses or throws a CLI11 error or
// nmt::Error, as the programs expect (apps/common/app_main.cc). A file that parses is written back
// with nmt::to_toml (what nmt-train keeps in config.toml), which must parse again to the same
// effective configuration.
#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "apps/common/app_main.h"
#include "apps/common/config_file.h"
#include "apps/common/train_options.h"
#include "nmt/core/error.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

using nmt::fuzz::MemoryFile;

// Parses `--config PATH` into a fresh application; returns false if the file is rejected, with the
// reason in `error`.
bool parse(const std::string& path, std::string& effective, std::string& error) {
  CLI::App app{"fuzz"};
  nmt::app::add_common_options(app);
  nmt::app::add_config_file_option(app);
  nmt::app::TrainOptions options(app);
  const std::string program = "nmt-fuzz", flag = "--config";
  char* argv[] = {const_cast<char*>(program.c_str()), const_cast<char*>(flag.c_str()), const_cast<char*>(path.c_str())};
  try {
    app.parse(3, argv);
  } catch (const CLI::Error& e) {
    error = e.what();
    return false;
  } catch (const nmt::Error& e) {
    error = e.what();
    return false;
  } catch (const std::exception& e) {
    FUZZ_UNEXPECTED("CLI::App::parse with the TOML reader", e);
  }
  try {
    effective = nmt::to_toml(options.config());
  } catch (const std::exception& e) {
    FUZZ_UNEXPECTED("nmt::to_toml", e);
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static MemoryFile file("fuzz-config"), written("fuzz-config-effective");
  file.set(nmt::fuzz::as_view(data, size));
  std::string effective, error;
  if (!parse(file.path(), effective, error)) return 0;
  // What a run directory's config.toml holds must configure the same run again. (NMT_FUZZ_NO_ROUNDTRIP=1
  // skips this, to fuzz the reader past a known round-trip bug.)
  static const bool roundtrip = std::getenv("NMT_FUZZ_NO_ROUNDTRIP") == nullptr;
  if (!roundtrip) return 0;
  written.set(effective);
  std::string again;
  FUZZ_CHECK(parse(written.path(), again, error), "the effective configuration does not parse (" + error + "):\n" + effective);
  FUZZ_CHECK(again == effective, "the effective configuration changes when read back:\n" + effective + "---\n" + again);
  return 0;
}
