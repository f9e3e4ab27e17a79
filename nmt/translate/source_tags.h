// Tags of a model trained on several corpora (data.corpus's `tag`, nmt/train/corpus_options.h): the
// pieces a source may start with to ask for one output style or direction. They are the source
// subword model's user-defined symbols, so every checkpoint lists its own, scripted ones included;
// the training configuration a checkpoint carries names the default.
#pragma once

#include <string>
#include <vector>

#include "nmt/core/toml_reader.h"
#include "nmt/data/tokenizer.h"

namespace nmt {

/// The tags a model knows: its source subword model's user-defined symbols, in id order.
std::vector<std::string> model_tags(const Tokenizer& source_tokenizer);

/// data.default-tag of nmt-train's effective configuration (a checkpoint's training_config), or ""
/// when it has none or is not nmt-train's.
std::string default_tag_of(const std::string& training_config);

/// One direction a tagged model offers: its sources' language, its outputs' and the tag that asks
/// for it ("" for an untagged corpus). Languages from the corpus files' extensions ("train.es" ->
/// "es") or a TSV's column names ("es"), "" where a name is no language code.
struct TagDirection {
  std::string source, target, tag;
  bool operator==(const TagDirection& o) const { return source == o.source && target == o.target && tag == o.tag; }
};

/// The directions of nmt-train's effective configuration: one per data.corpus table (two with
/// reverse), each once, in order; empty for a one-corpus configuration or one that is not nmt-train's.
std::vector<TagDirection> tag_directions(const std::string& training_config);

/// The language code of a training file from its extension: two or three lower-case letters
/// ("data/bible/train.es" -> "es"), or "".
std::string language_of_file(const std::string& path);

/// The tag a translation asks for: `requested` when given ("" asks for none), else the default.
/// ConfigError "tag 'X': not a tag of the model (its tags: ...)" for one the model lacks.
std::string choose_tag(const Tokenizer& source_tokenizer, const std::string* requested, const std::string& default_tag);

}  // namespace nmt
