// Columns of a TSV file (tab-separated, no quoting): what nmt-corpus prepare reads with --tsv, and
// what a [[data.corpus]] table's `tsv` gives nmt-train.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace nmt {

struct TsvColumns {
  std::vector<std::vector<std::string>> fields;  // [column asked for][row]
  std::vector<std::size_t> lines;                // each row's line in the file
};

/// The columns `columns` of `path`: by the names of its first line, or by 1-based numbers when
/// every column given is a number (then the file has no header line). Every row must have as many
/// fields as the first line. ConfigError for a name the header lacks; DataError "PATH:LINE: ..."
/// for a row of another width; IoError when the file cannot be read.
TsvColumns read_tsv_columns(const std::string& path, const std::vector<std::string>& columns);

/// read_tsv_columns' checks without keeping the fields: one pass, constant memory, the same errors
/// (nmt-train checks a corpus this way before it writes anything).
void check_tsv_columns(const std::string& path, const std::vector<std::string>& columns);

/// Whether `column` is a 1-based column number ("1", "12"; not "0", "01").
bool is_tsv_column_number(const std::string& column);

}  // namespace nmt
