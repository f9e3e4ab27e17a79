// A user's own parallel corpus made ready to train (docs/data.md, "Your own data"): read from
// Moses-style line-parallel files or from one TSV file, each side cleaned (Unicode NFC, control
// characters removed, white space collapsed), pairs filtered (empty, identical, too long, too
// unequal in length, exact duplicates), and split into train, dev and test by a seeded shuffle that
// keeps each group (a document, a book: a key column) in one split. What nmt-corpus prepare runs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nmt {

struct CorpusPreparation {
  // The input: line-parallel source and target files ...
  std::string source, target;
  std::string key_file;  // optional: a group key per line, line-parallel with them
  // ... or one TSV file (tab-separated, no quoting) and its columns: names from its first line, or
  // 1-based numbers when every column given is a number (then the file has no header line).
  std::string tsv;
  std::string source_column, target_column;
  std::string key_column;  // optional

  std::string output_dir;                          // made if missing
  std::string source_suffix = "src", target_suffix = "tgt";  // train.SRC, train.TGT, dev.SRC, ...
  std::int64_t max_words = 200;                    // either side (0: no limit)
  double max_ratio = 3.0;                          // longer side / shorter side, in words (0: no limit)
  bool keep_identical = false;                     // keep pairs whose two sides are the same text
  std::int64_t dev_size = 1000, test_size = 1000;  // pairs; with keys, whole groups until reached
  std::uint64_t seed = 1;                          // of the split
  bool replace = false;                            // replace output files that exist

  void validate() const;  // ConfigError naming the option
};

/// Pairs dropped for one reason, with the first few as examples (input line, "source ||| target").
struct DroppedPairs {
  std::string reason;  // "empty", "identical", "too long", "length ratio", "duplicate"
  std::int64_t count = 0;
  std::vector<std::pair<std::int64_t, std::string>> examples;
};

struct PreparationReport {
  std::int64_t read = 0;                // pairs read
  std::int64_t cleaned = 0;             // pairs whose text the cleaning changed
  std::vector<DroppedPairs> dropped;    // every reason, in the order the filters apply
  std::int64_t kept = 0;
  std::int64_t groups = 0;              // distinct keys among the kept pairs (each pair its own without keys)
  std::int64_t train = 0, dev = 0, test = 0;
  std::vector<std::string> files;       // written
};

/// Reads, cleans, filters, splits and writes OUTPUT_DIR/{train,dev,test}.{SRC,TGT}, each file
/// atomically and only after every input line was read and checked: a bad input writes nothing.
/// Throws ConfigError (options, columns, a split that leaves no training pairs, outputs that exist
/// without `replace`), DataError ("FILE:LINE: ..."), IoError.
PreparationReport prepare_corpus(const CorpusPreparation& options);

/// One segment cleaned: NFC (composed characters), control characters (C0, DEL, C1) and U+FEFF
/// removed (tabs and line breaks become spaces), runs of spaces made one, ends trimmed.
std::string clean_segment(std::string_view text);

/// The report as lines for a person (counts, reasons with examples, the split) and as JSON.
std::string format_preparation_report(const PreparationReport& report);
std::string preparation_report_json(const PreparationReport& report);

}  // namespace nmt
