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


std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  return first == std::string::npos ? "" : text.substr(first, text.find_last_not_of(" \t") - first + 1);
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
                                     std::string prefix) const {
  // CLI11 writes one "section.key=value" line per option (descriptions as "# ..." lines before
  // them); CLI11 2.4 (Debian 13) quotes names that hold a dot: 'section.key'=value. Regroup them.
  std::istringstream flat(CLI::ConfigTOML::to_config(app, default_also, write_description, std::move(prefix)));
  std::vector<std::string> top;
  std::map<std::string, std::vector<std::string>> sections;
  std::vector<std::string> pending_comments;
  std::vector<std::string> section_order;
  for (std::string line; std::getline(flat, line);) {
    if (line.empty()) continue;
    if (line[0] == '#') {
      pending_comments.push_back(line);
      continue;
    }
    const auto equals = line.find('=');
    std::string name = trimmed(line.substr(0, equals));
    if (name.size() >= 2 && (name.front() == '\'' || name.front() == '"') && name.back() == name.front()) {
      name = name.substr(1, name.size() - 2);
    }
    std::string value = equals == std::string::npos ? "" : trimmed(line.substr(equals + 1));
    // CLI11 writes a bool option's default as 0 or 1; TOML (and our reader) want true or false.
    const CLI::Option* option = app->get_option_no_throw("--" + name);
    if (option != nullptr && accepted_kinds(*option) == std::vector<TomlEntry::Kind>{TomlEntry::Kind::boolean}) {
      if (value == "0") value = "false";
      if (value == "1") value = "true";
    }
    const auto dot = name.find('.');
    const std::string section = dot == std::string::npos ? "" : name.substr(0, dot);
    if (!section.empty() && sections.find(section) == sections.end()) section_order.push_back(section);
    std::vector<std::string>& target = section.empty() ? top : sections[section];
    for (auto& comment : pending_comments) target.push_back(comment);
    pending_comments.clear();
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
