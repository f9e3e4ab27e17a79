#include "apps/common/config_file.h"

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "nmt/core/toml_reader.h"
#include "nmt/core/toml_writer.h"
#include "nmt/core/decimal_number.h"
#include "nmt/core/error.h"
#include "nmt/train/corpus_options.h"

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

// key -> (value as handed to CLI11, "FILE:LINE") of the last configuration file read: one for each
// key, one for each table of an array of tables.
std::map<std::string, std::vector<std::pair<std::string, std::string>>>& origins() {
  static std::map<std::string, std::vector<std::pair<std::string, std::string>>> table;
  return table;
}

// A table of an array of tables ([[data.corpus]]) as the inline table its option reads.
struct ArrayTable {
  std::string array;  // "data.corpus"
  std::string where;  // its header's FILE:LINE
  std::string text = "{";
  void add(const TomlEntry& entry) {
    const std::string key = entry.key.substr(array.size() + 1);
    text += (text.size() > 1 ? ", " : "") + toml_string(key) + " = " +
            (entry.kind == TomlEntry::Kind::string ? toml_string(entry.value) : entry.value);
  }
};

std::string config_file_name(const CLI::App* app) {
  if (app != nullptr) {
    const CLI::Option* config = app->get_config_ptr();
    if (config != nullptr && config->count() > 0) return config->results().back();
  }
  return "configuration";
}

// The keys the command line gives ("--train.lr 3e-4" and "--train.lr=3e-4" both give train.lr).
std::set<std::string>& command_line_keys() {
  static std::set<std::string> keys;
  return keys;
}

}  // namespace

std::vector<CLI::ConfigItem> SectionedToml::from_config(std::istream& input) const {
  const std::string source = config_file_name(app_);
  // At most kMaxConfigBytes + 1 characters are read (check_config_file looked at the size first;
  // the file may have grown since).
  std::string text;
  for (std::istreambuf_iterator<char> it(input), end; it != end && text.size() <= kMaxConfigBytes; ++it) text += *it;
  if (text.size() > kMaxConfigBytes) {
    throw CLI::ConfigError(source + ": more than the " + std::to_string(kMaxConfigBytes) +
                           " bytes a configuration file may have");
  }
  std::vector<CLI::ConfigItem> items;
  origins().clear();
  try {
    std::vector<ArrayTable> tables;
    for (const TomlEntry& entry : parse_toml_config(text, source)) {
      const std::string where = source + ":" + std::to_string(entry.line);
      if (entry.kind == TomlEntry::Kind::table) {
        if (app_ != nullptr) {
          const CLI::Option* option = app_->get_option_no_throw("--" + entry.key);
          if (option == nullptr || !option->get_configurable() || option->get_type_name() != "TABLE") {
            throw ConfigError(where + ": unknown array of tables [[" + shown_text(entry.key) + "]]");
          }
        }
        tables.push_back(ArrayTable{entry.key, where});
        continue;
      }
      if (entry.table >= 0) {
        // Each key is checked alone here, so that an unknown key or a value of the wrong type
        // names its own line; the table as a whole (the files, a tag) is checked when parsed.
        if (tables.back().array == "data.corpus") {
          TomlEntry alone = entry;
          alone.key = entry.key.substr(tables.back().array.size() + 1);
          parse_corpus_table({alone}, where);
        }
        tables.back().add(entry);
        continue;
      }
      if (app_ != nullptr) {
        const CLI::Option* option = app_->get_option_no_throw("--" + entry.key);
        if (option == nullptr || !option->get_configurable() || option->get_type_name() == "TABLE") {
          throw ConfigError(where + ": unknown key " + quoted_excerpt(entry.key));
        }
        const auto kinds = accepted_kinds(*option);
        if (std::find(kinds.begin(), kinds.end(), entry.kind) == kinds.end()) {
          const std::string bare = shown_text(entry.value);  // quoted_excerpt's own quotes when cut
          const bool cut = bare != entry.value;
          const std::string shown = entry.kind == TomlEntry::Kind::string && !cut ? "\"" + bare + "\"" : bare;
          throw ConfigError(where + ": " + entry.key + " must be " + to_string(kinds.back()) + ", got " + shown);
        }
      }
      std::string value = entry.value;
      if (entry.kind == TomlEntry::Kind::integer || entry.kind == TomlEntry::Kind::floating) {
        // TOML's digit separators (checked by the reader: only between digits) are not ours.
        value.erase(std::remove(value.begin(), value.end(), '_'), value.end());
      }
      origins()[entry.key] = {{value, where}};
      CLI::ConfigItem item;
      item.name = entry.key;
      item.inputs = {value};
      items.push_back(std::move(item));
    }
    // Each array's tables as one option with a value per table, in file order.
    for (const ArrayTable& table : tables) {
      ArrayTable closed = table;
      closed.text += "}";
      origins()[table.array].emplace_back(closed.text, table.where);
      auto item = std::find_if(items.begin(), items.end(), [&](const CLI::ConfigItem& i) { return i.name == table.array; });
      if (item == items.end()) {
        items.emplace_back();
        item = std::prev(items.end());
        item->name = table.array;
      }
      item->inputs.push_back(closed.text);
    }
  } catch (const ConfigError& e) {
    throw CLI::ConfigError(e.what());
  }
  return items;
}

void note_command_line(int argc, char** argv) {
  command_line_keys().clear();
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--", 0) == 0) command_line_keys().insert(arg.substr(2, arg.find('=') - 2));
  }
}

std::string config_key_origin(const std::string& key) {
  if (command_line_keys().count(key) > 0) return std::string();
  const auto it = origins().find(key);
  return it != origins().end() && !it->second.empty() ? it->second.front().second : std::string();
}

std::string config_value_origin(const std::string& key, const std::string& value) {
  if (command_line_keys().count(key) > 0) return std::string();
  const auto it = origins().find(key);
  if (it == origins().end()) return std::string();
  for (const auto& [given, where] : it->second) {
    if (given == value) return where;
  }
  return std::string();
}

void check_config_file(const std::string& path) {
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (error || status.type() == std::filesystem::file_type::not_found) return;
  const std::string name = "--config " + quoted_excerpt(path);
  if (status.type() != std::filesystem::file_type::regular) {
    throw ConfigError(name + ": not a regular file (a configuration is a TOML text file)");
  }
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (!error && size > kMaxConfigBytes) {
    throw ConfigError(name + ": " + std::to_string(size) + " bytes, more than the " +
                      std::to_string(kMaxConfigBytes) + " a configuration file may have");
  }
}

void add_config_file_option(CLI::App& app) {
  app.config_formatter(std::make_shared<SectionedToml>(&app));
  app.set_config("--config", "", "TOML configuration file ([section] key = value is --section.key)");
  app.allow_config_extras(CLI::config_extras_mode::error);
}

}  // namespace nmt::app
