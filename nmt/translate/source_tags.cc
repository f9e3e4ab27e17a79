#include "nmt/translate/source_tags.h"

#include <algorithm>

#include "nmt/core/decimal_number.h"
#include "nmt/core/error.h"
#include "nmt/core/toml_reader.h"

namespace nmt {

std::vector<std::string> model_tags(const Tokenizer& source_tokenizer) { return source_tokenizer.user_defined_pieces(); }

std::string default_tag_of(const std::string& training_config) {
  for (const TomlEntry& entry : training_config_entries(training_config)) {
    if (entry.key == "data.default-tag" && entry.kind == TomlEntry::Kind::string) return entry.value;
  }
  return "";
}

std::string language_of_file(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::size_t dot = name.find_last_of('.');
  if (dot == std::string::npos) return "";
  const std::string extension = name.substr(dot + 1);
  const bool code = extension.size() >= 2 && extension.size() <= 3 &&
                    std::all_of(extension.begin(), extension.end(), [](char c) { return c >= 'a' && c <= 'z'; });
  return code ? extension : "";
}

std::vector<TagDirection> tag_directions(const std::string& training_config) {
  struct Table {
    std::string source, target, source_column, target_column, tag, reverse_tag;
    bool reverse = false;
  };
  std::vector<Table> tables;
  for (const TomlEntry& entry : training_config_entries(training_config)) {
    if (entry.table < 0 || entry.key.rfind("data.corpus", 0) != 0) continue;
    if (entry.kind == TomlEntry::Kind::table) {
      tables.emplace_back();
      continue;
    }
    if (tables.empty()) continue;
    Table& t = tables.back();
    const std::string key = entry.key.substr(std::string("data.corpus.").size());
    if (key == "source") t.source = entry.value;
    if (key == "target") t.target = entry.value;
    if (key == "source-column") t.source_column = entry.value;
    if (key == "target-column") t.target_column = entry.value;
    if (key == "tag") t.tag = entry.value;
    if (key == "reverse-tag") t.reverse_tag = entry.value;
    if (key == "reverse") t.reverse = entry.value == "true";
  }
  std::vector<TagDirection> directions;
  const auto add = [&](TagDirection d) {
    if (std::find(directions.begin(), directions.end(), d) == directions.end()) directions.push_back(std::move(d));
  };
  for (const Table& t : tables) {
    // A TSV's columns named like languages ("es", "en") name them.
    const std::string source = t.source.empty() ? language_of_file("." + t.source_column) : language_of_file(t.source);
    const std::string target = t.target.empty() ? language_of_file("." + t.target_column) : language_of_file(t.target);
    add({source, target, t.tag});
    if (t.reverse) add({target, source, t.reverse_tag});
  }
  return directions;
}

std::string choose_tag(const Tokenizer& source_tokenizer, const std::string* requested, const std::string& default_tag) {
  const std::string tag = requested != nullptr ? *requested : default_tag;
  if (tag.empty()) return tag;
  const std::vector<std::string> tags = model_tags(source_tokenizer);
  if (std::find(tags.begin(), tags.end(), tag) == tags.end()) {
    std::string known;
    for (const std::string& t : tags) known += (known.empty() ? "" : ", ") + t;
    throw ConfigError("tag " + quoted_excerpt(tag) + ": not a tag of the model (" +
                      (known.empty() ? std::string("it was trained without tags") : "its tags: " + known) + ")");
  }
  return tag;
}

}  // namespace nmt
