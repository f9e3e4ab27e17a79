// TOML configuration files for the programs: `[train] max-steps = 500` is the option
// --train.max-steps, top-level keys are options without a section. CLI11 maps TOML sections to
// subcommands; this formatter maps them to dotted option names instead, and writes the effective
// configuration back in sections.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace nmt::app {

class SectionedToml : public CLI::ConfigTOML {
 public:
  /// `app`: the program whose options the file sets (keys and value types are checked against it).
  explicit SectionedToml(const CLI::App* app = nullptr) : app_(app) {}
  /// Reads the file strictly (apps/common/toml_reader.h). Throws CLI::ConfigError with a message
  /// "FILE:LINE: ..." for a malformed file, an unknown key or a value of the wrong type.
  std::vector<CLI::ConfigItem> from_config(std::istream& input) const override;
  std::string to_config(const CLI::App* app, bool default_also, bool write_description,
                        std::string prefix) const override;

 private:
  const CLI::App* app_;
};

/// Adds --config FILE (TOML) to `app`: unknown keys, values of the wrong type, duplicate keys and
/// anything that is not plain TOML are errors (exit status 2).
void add_config_file_option(CLI::App& app);

/// Every configurable option with its effective value, as TOML in sections.
std::string effective_config(const CLI::App& app);

}  // namespace nmt::app
