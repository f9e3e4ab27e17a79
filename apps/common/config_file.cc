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

std::string SectionedToml::to_config(const CLI::App* app, bool default_also, bool write_description,
                                     std::string /*prefix*/) const {
  // Written from the options themselves, not from CLI11's text: CLI11 quotes strings without
  // escaping them (a path a\b came back as a, backspace, b; a newline broke the file; found by
  // fuzzing), writes bools as 0/1 and, in 2.4, quotes dotted names. Top-level keys first, then one
  // [section] per name before the first dot, in the options' order.
  std::vector<std::string> top;
  std::map<std::string, std::vector<std::string>> sections;
  std::vector<std::string> section_order;
  for (const CLI::Option* option : app->get_options({})) {
    if (!option->get_configurable()) continue;
    const std::string name = option->get_single_name();
    const std::vector<std::string> given = option->reduced_results();
    std::string value;
    if (!given.empty()) {
      value = given.back();
    } else if (default_also) {
      value = option->get_default_str();
    } else {
      continue;
    }
    const std::vector<TomlEntry::Kind> kinds = accepted_kinds(*option);
    if (kinds.front() == TomlEntry::Kind::boolean) {
      value = (value == "1" || value == "true" || value == "on" || value == "yes") ? "true" : "false";
    } else if (kinds.front() == TomlEntry::Kind::string) {
      value = to_toml_string(value);
    } else if (value.empty()) {
      continue;  // a number without a value: nothing to write
    }
    const auto dot = name.find('.');
    const std::string section = dot == std::string::npos ? "" : name.substr(0, dot);
    if (!section.empty() && sections.find(section) == sections.end()) section_order.push_back(section);
    std::vector<std::string>& target = section.empty() ? top : sections[section];
    if (write_description && !option->get_description().empty()) target.push_back("# " + option->get_description());
    target.push_back((section.empty() ? name : name.substr(dot + 1)) + " = " + value);
  }
  std::string out;
  for (const auto& line : top) out += line + "\n";
  for (const auto& name : section_order) {
    out += "\n[" + name + "]\n";
    for (const auto& line : sections[name]) out += line + "\n";
  }
  return out;
}

void add_config_file_option(CLI::App& app) {
  app.config_formatter(std::make_shared<SectionedToml>(&app));
  app.set_config("--config", "", "TOML configuration file ([section] key = value is --section.key)");
  app.allow_config_extras(CLI::config_extras_mode::error);
}

std::string effective_config(const CLI::App& app) { return app.config_to_str(/*default_also=*/true, false); }

}  // namespace nmt::app
