#include "nmt/train/corpus_options.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "nmt/core/decimal_number.h"
#include "nmt/core/error.h"
#include "nmt/core/toml_writer.h"

namespace nmt {
namespace {

const char* const kOption = "data.corpus";

std::string key_list() {
  std::string out;
  for (const std::string& key : corpus_table_keys()) out += (out.empty() ? "" : ", ") + key;
  return out;
}

bool has_space_or_control(const std::string& text) {
  return std::any_of(text.begin(), text.end(), [](char c) { return c == ' ' || is_control_character(c); });
}

}  // namespace

bool CorpusOptions::operator==(const CorpusOptions& o) const {
  return source == o.source && target == o.target && tsv == o.tsv && source_column == o.source_column &&
         target_column == o.target_column && weight == o.weight && tag == o.tag && reverse == o.reverse &&
         reverse_tag == o.reverse_tag;
}

std::string CorpusList::text() const {
  std::string out;
  for (const CorpusOptions& corpus : corpora) out += (out.empty() ? "" : ", ") + corpus_inline_table(corpus);
  return out;
}

const std::vector<std::string>& corpus_table_keys() {
  static const std::vector<std::string> keys = {"source", "target",  "tsv",     "source-column", "target-column",
                                                "weight", "tag",     "reverse", "reverse-tag"};
  return keys;
}

std::vector<std::pair<std::string, std::string>> corpus_table_entries(const CorpusOptions& c, bool with_files) {
  std::vector<std::pair<std::string, std::string>> out;
  if (c.tsv.empty()) {
    if (with_files) {
      out.emplace_back("source", toml_string(c.source));
      out.emplace_back("target", toml_string(c.target));
    }
  } else {
    if (with_files) out.emplace_back("tsv", toml_string(c.tsv));
    out.emplace_back("source-column", toml_string(c.source_column));
    out.emplace_back("target-column", toml_string(c.target_column));
  }
  out.emplace_back("weight", toml_float(c.weight));
  out.emplace_back("tag", toml_string(c.tag));
  out.emplace_back("reverse", c.reverse ? "true" : "false");
  out.emplace_back("reverse-tag", toml_string(c.reverse_tag));
  return out;
}

std::string corpus_inline_table(const CorpusOptions& corpus) {
  std::string out;
  for (const auto& [key, value] : corpus_table_entries(corpus)) out += (out.empty() ? "{" : ", ") + key + " = " + value;
  return out + "}";
}

CorpusOptions parse_corpus_table(const std::vector<TomlEntry>& entries, const std::string& where) {
  CorpusOptions corpus;
  std::set<std::string> seen;
  for (const TomlEntry& entry : entries) {
    const std::string at = where + ": " + kOption + "." + entry.key;
    const auto want = [&](TomlEntry::Kind kind, bool number = false) {
      const bool ok = entry.kind == kind || (number && entry.kind == TomlEntry::Kind::integer);
      if (!ok) throw ConfigError(at + " must be " + to_string(kind) + ", got " + quoted_excerpt(entry.value));
    };
    if (!seen.insert(entry.key).second) throw ConfigError(at + " is set twice");
    std::string* text = entry.key == "source"          ? &corpus.source
                        : entry.key == "target"        ? &corpus.target
                        : entry.key == "tsv"           ? &corpus.tsv
                        : entry.key == "source-column" ? &corpus.source_column
                        : entry.key == "target-column" ? &corpus.target_column
                        : entry.key == "tag"           ? &corpus.tag
                        : entry.key == "reverse-tag"   ? &corpus.reverse_tag
                                                       : nullptr;
    if (text != nullptr) {
      want(TomlEntry::Kind::string);
      *text = entry.value;
    } else if (entry.key == "weight") {
      want(TomlEntry::Kind::floating, /*number=*/true);
      std::string digits = entry.value;
      digits.erase(std::remove(digits.begin(), digits.end(), '_'), digits.end());
      corpus.weight = parse_decimal_float(digits, at);
    } else if (entry.key == "reverse") {
      want(TomlEntry::Kind::boolean);
      corpus.reverse = entry.value == "true";
    } else {
      throw ConfigError(where + ": " + kOption + ": unknown key " + quoted_excerpt(entry.key) + " (a corpus has " +
                        key_list() + ")");
    }
  }
  return corpus;
}

CorpusOptions parse_corpus_inline_table(std::string_view text, const std::string& given_where) {
  const std::string where =
      given_where.empty() ? std::string("--") + kOption + " " + quoted_excerpt(std::string(text)) : given_where;
  return parse_corpus_table(parse_toml_inline_table(text, where), where);
}

std::string corpus_name(const CorpusList& list, std::size_t index) {
  const CorpusOptions& c = list.corpora.at(index);
  const std::string files = c.tsv.empty() ? quoted_excerpt(c.source) + ", " + quoted_excerpt(c.target)
                                          : quoted_excerpt(c.tsv) + ": " + quoted_excerpt(c.source_column) + ", " +
                                                quoted_excerpt(c.target_column);
  return std::string(kOption) + "[" + std::to_string(index + 1) + "] (" + files + ")";
}

void validate_corpora(const CorpusList& list, bool joint, const std::string& default_tag) {
  std::set<std::string> forward_tags;
  for (const CorpusOptions& c : list.corpora) {
    if (!c.tag.empty()) forward_tags.insert(c.tag);
  }
  static const std::set<std::string> special = {"<pad>", "<unk>", "<s>", "</s>"};
  const auto check_tag = [&](const std::string& name, const std::string& key, const std::string& tag) {
    if (tag.empty()) return;
    if (has_space_or_control(tag) || special.count(tag) > 0 || tag.find("\xE2\x96\x81") != std::string::npos ||
        tag.find(',') != std::string::npos) {
      throw ConfigError(name + ": " + key + " " + quoted_excerpt(tag) +
                        " is not a tag: a tag is one piece, without spaces, commas or SentencePiece's \xE2\x96\x81, "
                        "and not <pad>, <unk>, <s> or </s>");
    }
  };
  for (std::size_t i = 0; i < list.corpora.size(); ++i) {
    const CorpusOptions& c = list.corpora[i];
    const std::string name = corpus_name(list, i);
    for (const auto& [key, value] : {std::pair<const char*, const std::string&>{"source", c.source},
                                     {"target", c.target}, {"tsv", c.tsv}, {"source-column", c.source_column},
                                     {"target-column", c.target_column}, {"tag", c.tag}, {"reverse-tag", c.reverse_tag}}) {
      if (std::any_of(value.begin(), value.end(), is_control_character)) {
        throw ConfigError(name + ": " + key + ": control character in " + quoted_excerpt(value) +
                          ": paths and names cannot hold one");
      }
    }
    const bool files = !c.source.empty() || !c.target.empty(), table = !c.tsv.empty();
    if (files && table) throw ConfigError(name + ": give source and target, or tsv with its columns, not both");
    if (table && (c.source_column.empty() || c.target_column.empty())) {
      throw ConfigError(name + ": tsv needs source-column and target-column (names from its header line, or numbers "
                        "from 1)");
    }
    if (!table && (!c.source_column.empty() || !c.target_column.empty())) {
      throw ConfigError(name + ": source-column and target-column are for a tsv");
    }
    if (!table && (c.source.empty() || c.target.empty())) {
      throw ConfigError(name + ": source and target must both be set (or tsv with its columns)");
    }
    if (!(c.weight > 0) || !std::isfinite(c.weight)) {
      throw ConfigError(name + ": weight must be a number > 0, got " + toml_float(c.weight));
    }
    check_tag(name, "tag", c.tag);
    check_tag(name, "reverse-tag", c.reverse_tag);
    if (c.reverse) {
      if (!joint) throw ConfigError(name + ": reverse needs a joint vocabulary (leave data.target-spm empty)");
      if (c.reverse_tag.empty()) throw ConfigError(name + ": reverse = true needs a reverse-tag (the reversed pairs' tag)");
      if (forward_tags.count(c.reverse_tag) > 0) {
        throw ConfigError(name + ": reverse-tag " + quoted_excerpt(c.reverse_tag) +
                          " is also a forward tag: one tag cannot ask for both directions");
      }
    } else if (!c.reverse_tag.empty()) {
      throw ConfigError(name + ": reverse-tag is set but reverse is false");
    }
  }
  if (!default_tag.empty()) {
    const auto tags = corpus_tags(list);
    if (std::find(tags.begin(), tags.end(), default_tag) == tags.end()) {
      std::string known;
      for (const std::string& tag : tags) known += (known.empty() ? "" : ", ") + tag;
      throw ConfigError("data.default-tag: " + quoted_excerpt(default_tag) + " is not a tag of data.corpus (" +
                        (known.empty() ? std::string("which has none") : "its tags: " + known) + ")");
    }
  }
}

std::vector<std::string> corpus_tags(const CorpusList& list) {
  std::vector<std::string> tags;
  const auto add = [&](const std::string& tag) {
    if (!tag.empty() && std::find(tags.begin(), tags.end(), tag) == tags.end()) tags.push_back(tag);
  };
  for (const CorpusOptions& c : list.corpora) {
    add(c.tag);
    if (c.reverse) add(c.reverse_tag);
  }
  return tags;
}

}  // namespace nmt
