// TOML configuration files for the programs: `[train] max-steps = 500` is the option
// --train.max-steps, top-level keys are options without a section. CLI11 maps TOML sections to
// subcommands; this reader maps them to dotted option names instead. (The library writes the
// effective configuration itself: nmt::to_toml.)
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace nmt::app {

class SectionedToml : public CLI::ConfigTOML {
 public:
  /// `app`: the program whose options the file sets (keys and value types are checked against it).
  explicit SectionedToml(const CLI::App* app = nullptr) : app_(app) {}
  /// Reads the file strictly (nmt/core/toml_reader.h). Throws CLI::ConfigError with a message
  /// "FILE:LINE: ..." for a malformed file, an unknown key or a value of the wrong type.
  std::vector<CLI::ConfigItem> from_config(std::istream& input) const override;

 private:
  const CLI::App* app_;
};

/// Remembers which options the command line gives: the config file's entry for such a key is
/// never the origin of a value (the command line wins).
void note_command_line(int argc, char** argv);

/// "FILE:LINE" of the configuration file entry that set option `key` (dotted, no dashes) to
/// `value`, or "" when the last file read has none or the command line gives the key.
std::string config_value_origin(const std::string& key, const std::string& value);

/// "FILE:LINE" of the configuration file entry that set option `key`, whatever its value, or ""
/// (also when the command line gives the key).
std::string config_key_origin(const std::string& key);

/// The largest configuration file read (1 MiB: ours are a few KiB).
inline constexpr std::uintmax_t kMaxConfigBytes = std::uintmax_t{1} << 20;

/// Throws nmt::ConfigError "--config PATH: ..." unless PATH is a regular file of at most
/// kMaxConfigBytes (a FIFO would block the reader, /dev/zero would fill the memory). A missing
/// file is left to CLI11, which names it.
void check_config_file(const std::string& path);

/// Adds --config FILE (TOML) to `app`: unknown keys, values of the wrong type, duplicate keys and
/// anything that is not plain TOML are errors (exit status 2).
void add_config_file_option(CLI::App& app);

}  // namespace nmt::app
