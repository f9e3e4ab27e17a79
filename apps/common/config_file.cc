#include "apps/common/config_file.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <sstream>
#include <vector>

#include "apps/common/toml_reader.h"
#include "nmt/core/error.h"

namespace nmt::app {

namespace {

// What a TOML value must be for an option, from CLI11's type name for it.
std::vector<TomlEntry::Kind> accepted_kinds(const CLI::Option& option) {
  using Kind = TomlEntry::Kind;
  const std::string type = option.get_type_name();
  if (option.get_expected_min() == 0 || type == "BOOLEAN") return {Kind::boolean};  // flags and bool options
  if (type == "INT" || type == "UINT") return {Kind::integer};
  if (type == "FLOAT") return {Kind::integer, Kind::floating};
  return {Kind::string};
}

std::string config_file_name(const CLI::App* app) {
  if (app != nullptr) {
    const CLI::Option* config = app->get_config_ptr();
    if (config != nullptr && config->count() > 0) return config->results().back();
  }
  return "configuration";
}

}  // namespace

std::vector<CLI::ConfigItem> SectionedToml::from_config(std::istream& input) const {
  const std::string source = config_file_name(app_);
  const std::string text{std::istreambuf_iterator<char>(input), std::istreambuf_iterator<char>()};
  std::vector<CLI::ConfigItem> items;
  try {
    for (const TomlEntry& entry : parse_toml_config(text, source)) {
      const std::string where = source + ":" + std::to_string(entry.line);
      if (app_ != nullptr) {
        const CLI::Option* option = app_->get_option_no_throw("--" + entry.key);
        if (option == nullptr || !option->get_configurable()) {
          throw ConfigError(where + ": unknown key '" + entry.key + "'");
        }
        const auto kinds = accepted_kinds(*option);
        if (std::find(kinds.begin(), kinds.end(), entry.kind) == kinds.end()) {
          const std::string shown = entry.kind == TomlEntry::Kind::string ? "\"" + entry.value + "\"" : entry.value;
          throw ConfigError(where + ": " + entry.key + " must be " + to_string(kinds.back()) + ", got " + shown);
        }
      }
      CLI::ConfigItem item;
      item.name = entry.key;
      item.inputs = {entry.value};
      items.push_back(std::move(item));
    }
  } catch (const ConfigError& e) {
    throw CLI::ConfigError(e.what());
  }
  return items;
}

void add_config_file_option(CLI::App& app) {
  app.config_formatter(std::make_shared<SectionedToml>(&app));
  app.set_config("--config", "", "TOML configuration file ([section] key = value is --section.key)");
  app.allow_config_extras(CLI::config_extras_mode::error);
}

}  // namespace nmt::app
