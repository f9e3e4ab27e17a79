#include "apps/common/config_file.h"

#include <map>
#include <sstream>
#include <vector>

namespace nmt::app {

std::vector<CLI::ConfigItem> SectionedToml::from_config(std::istream& input) const {
  std::vector<CLI::ConfigItem> flat;
  for (auto item : CLI::ConfigTOML::from_config(input)) {
    if (item.name == "++" || item.name == "--") continue;  // CLI11's section open/close markers
    std::string prefix;
    for (const auto& parent : item.parents) prefix += parent + ".";
    item.name = prefix + item.name;
    item.parents.clear();
    flat.push_back(std::move(item));
  }
  return flat;
}

namespace {

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  return first == std::string::npos ? "" : text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

}  // namespace

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
    const std::string value = equals == std::string::npos ? "" : trimmed(line.substr(equals + 1));
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
  app.config_formatter(std::make_shared<SectionedToml>());
  app.set_config("--config", "", "TOML configuration file ([section] key = value is --section.key)");
  app.allow_config_extras(CLI::config_extras_mode::error);
}

std::string effective_config(const CLI::App& app) { return app.config_to_str(/*default_also=*/true, false); }

}  // namespace nmt::app
