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
  std::vector<CLI::ConfigItem> from_config(std::istream& input) const override;
  std::string to_config(const CLI::App* app, bool default_also, bool write_description,
                        std::string prefix) const override;
};

/// Adds --config FILE (TOML) to `app`: unknown keys and values of the wrong type are errors.
void add_config_file_option(CLI::App& app);

/// Every configurable option with its effective value, as TOML in sections.
std::string effective_config(const CLI::App& app);

}  // namespace nmt::app
