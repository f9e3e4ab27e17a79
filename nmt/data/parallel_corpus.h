// ParallelCorpus: an aligned pair of UTF-8 text files, one sentence a line, tokenized once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "nmt/data/tokenizer.h"

namespace nmt {

/// A read-only view of one sentence's subword ids (no BOS/EOS).
struct TokenSpan {
  const std::int32_t* data = nullptr;
  std::size_t size = 0;
  const std::int32_t* begin() const { return data; }
  const std::int32_t* end() const { return data + size; }
  std::int32_t operator[](std::size_t i) const { return data[i]; }
};

/// `ids` with `tag` (a corpus's tag, nmt/train/corpus_options.h) before them; -1: `ids` as they are.
std::vector<int> with_tag(int tag, TokenSpan ids);

struct CorpusFilterOptions {
  int max_length = 0;           // drop pairs with a side longer than this many subwords; 0: no limit
  double max_length_ratio = 0;  // drop pairs whose longer side exceeds ratio x the shorter; 0: no limit
  void validate() const;        // throws ConfigError
};

/// What load() read and what it kept. lines = kept + empty + too_long + bad_ratio.
struct CorpusCounts {
  std::size_t lines = 0;      // line pairs read
  std::size_t kept = 0;
  std::size_t empty = 0;      // a side empty or only whitespace
  std::size_t too_long = 0;   // a side longer than max_length subwords
  std::size_t bad_ratio = 0;  // length ratio above max_length_ratio
};

/// ParallelCorpus::load's checks of the two files without tokenizing them: the same number of lines
/// (a DataError naming both files and both counts) and valid UTF-8. One pass, constant memory:
/// nmt-train makes it before it writes anything (nmt/train/training_data.h, check_data_files).
void check_parallel_files(const std::string& source_path, const std::string& target_path);

class ParallelCorpus {
 public:
  /// Reads both files line by line, checks that they have the same number of lines (the error names
  /// both files and both counts), rejects invalid UTF-8 ("FILE:LINE: invalid UTF-8 at byte B"),
  /// skips and counts empty lines, tokenizes each side once and applies the filter.
  static ParallelCorpus load(const std::string& source_path, const std::string& target_path,
                             const Tokenizer& source_tokenizer, const Tokenizer& target_tokenizer,
                             const CorpusFilterOptions& filter = {});

  /// The same from texts read elsewhere (a TSV's columns): pair i read from line lines[i] of
  /// `name`, which messages name as "NAME:LINE".
  static ParallelCorpus from_texts(const std::vector<std::string>& sources, const std::vector<std::string>& targets,
                                   const std::vector<std::size_t>& lines, const Tokenizer& source_tokenizer,
                                   const Tokenizer& target_tokenizer, const CorpusFilterOptions& filter,
                                   const std::string& name);

  /// A corpus from id sequences (tests, programmatic use). Line numbers are 1..n.
  static ParallelCorpus from_sequences(const std::vector<std::vector<int>>& source,
                                       const std::vector<std::vector<int>>& target);

  std::size_t size() const { return line_numbers_.size(); }
  TokenSpan source(std::size_t i) const { return span(source_ids_, source_offsets_, i); }
  TokenSpan target(std::size_t i) const { return span(target_ids_, target_offsets_, i); }
  /// 1-based line of pair i in the input files.
  std::size_t line_number(std::size_t i) const { return line_numbers_[i]; }
  /// "SOURCE and TARGET" file names, or "<sequences>", for messages.
  const std::string& name() const { return name_; }
  const CorpusCounts& counts() const { return counts_; }
  std::size_t source_tokens() const { return source_ids_.size(); }
  std::size_t target_tokens() const { return target_ids_.size(); }

  /// A hash of every kept sequence, so that a saved batching position is only restored on the
  /// corpus it was made for.
  std::uint64_t fingerprint() const;

 private:
  void add(const std::vector<int>& source, const std::vector<int>& target, std::size_t line);
  /// Counts, segments and filters one pair of texts; keeps it when the filter lets it through.
  void take(const std::string& source, const std::string& target, std::size_t line, const Tokenizer& source_tokenizer,
            const Tokenizer& target_tokenizer, const CorpusFilterOptions& filter, const std::string& where);
  void finish();  // counts kept, storage trimmed
  static TokenSpan span(const std::vector<std::int32_t>& ids, const std::vector<std::size_t>& offsets,
                        std::size_t i) {
    return {ids.data() + offsets[i], offsets[i + 1] - offsets[i]};
  }

  // Flat storage: sentence i is ids[offsets[i], offsets[i+1]). One copy of the corpus, as int32.
  std::vector<std::int32_t> source_ids_, target_ids_;
  std::vector<std::size_t> source_offsets_{0}, target_offsets_{0};
  std::vector<std::size_t> line_numbers_;
  CorpusCounts counts_;
  std::string name_ = "<sequences>";
};

}  // namespace nmt
