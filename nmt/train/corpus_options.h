// Several training corpora (data.corpus, [[data.corpus]] tables in a configuration): each a pair of
// line-parallel files with its share of every epoch (weight), an optional tag put before each of
// its sources, and optionally its pairs reversed as well (target -> source, with a tag of their
// own). The one-corpus shorthand data.train-source / data.train-target stays what it was.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nmt/core/toml_reader.h"

namespace nmt {

struct CorpusOptions {
  std::string source, target;  // line-parallel UTF-8 text files, or
  std::string tsv;             // one TSV file (nmt/data/tsv_columns.h) and its two columns: names
  std::string source_column, target_column;  //   from its header line, or numbers from 1
  double weight = 1;           // share of each epoch's samples, relative to the other corpora's
  std::string tag;             // a piece put before every source ("": none)
  bool reverse = false;        // also train target -> source from the same pairs (joint vocabulary)
  std::string reverse_tag;     // put before every reversed source; required with reverse

  bool operator==(const CorpusOptions& other) const;
};

/// The option data.corpus: the training corpora, in order (empty: the one-corpus shorthand).
struct CorpusList {
  std::vector<CorpusOptions> corpora;
  bool empty() const { return corpora.empty(); }
  /// Every corpus as an inline table (corpus_inline_table), joined by ", ", for messages.
  std::string text() const;
  bool operator==(const CorpusList& other) const { return corpora == other.corpora; }
};

/// The keys of one corpus's table, in the order to_toml writes them.
const std::vector<std::string>& corpus_table_keys();  // source, target, tsv, source-column, ..., reverse-tag

/// One corpus's table as (key, TOML value) pairs in corpus_table_keys() order: its files (source
/// and target, or tsv and its columns; without the file names when `with_files` is false, what
/// ranks on other machines must share), then weight, tag, reverse and reverse-tag.
std::vector<std::pair<std::string, std::string>> corpus_table_entries(const CorpusOptions& corpus,
                                                                      bool with_files = true);

/// One corpus as a TOML inline table: {source = "a.es", target = "a.en", weight = 2, ...}, the
/// form --data.corpus takes.
std::string corpus_inline_table(const CorpusOptions& corpus);

/// A corpus from its table's entries (keys without the array's name: "source"); unknown keys and
/// values of the wrong type are ConfigErrors "WHERE: data.corpus: ..." (`where` names the table, or
/// its entry's FILE:LINE when the entry has one, as "FILE:LINE").
CorpusOptions parse_corpus_table(const std::vector<TomlEntry>& entries, const std::string& where);

/// A corpus from its inline table (corpus_inline_table's form; braces optional); `where` begins
/// its messages (default: "--data.corpus '{...}'").
CorpusOptions parse_corpus_inline_table(std::string_view text, const std::string& where = "");

/// "data.corpus[2] (a.es, a.en)" or "data.corpus[2] (c.tsv: es, en)" for messages: 1-based.
std::string corpus_name(const CorpusList& list, std::size_t index);

/// The corpus rules that need no file: each corpus has source and target or a tsv with both
/// columns (not both ways), a weight > 0, tags are
/// pieces (no white space, not a special piece such as <unk>), reverse has a reverse-tag unlike any
/// forward tag and `joint` vocabulary; `default_tag` ("": none) is one of the tags. ConfigError
/// naming data.corpus[N] and the key.
void validate_corpora(const CorpusList& list, bool joint, const std::string& default_tag);

/// Every distinct tag (forward and reverse) in order of first use.
std::vector<std::string> corpus_tags(const CorpusList& list);

}  // namespace nmt
