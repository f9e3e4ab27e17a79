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

std::string SectionedToml::to_config(const CLI::App* app, bool default_also, bool write_description,
                                     std::string prefix) const {
  // CLI11 writes "section.key=value" lines (descriptions as "# ..." lines before them); regroup.
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
    const std::string key = line.substr(0, equals);
    const auto dot = key.find('.');
    std::vector<std::string>& target = dot == std::string::npos || dot > equals ? top : sections[key.substr(0, dot)];
    if (dot != std::string::npos && dot < equals && sections[key.substr(0, dot)].empty()) {
      section_order.push_back(key.substr(0, dot));
    }
    for (auto& comment : pending_comments) target.push_back(comment);
    pending_comments.clear();
    target.push_back(dot == std::string::npos || dot > equals ? key + " = " + line.substr(equals + 1)
                                                               : key.substr(dot + 1) + " = " + line.substr(equals + 1));
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
