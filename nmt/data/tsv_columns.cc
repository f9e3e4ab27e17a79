#include "nmt/data/tsv_columns.h"

#include <algorithm>
#include <functional>

#include "nmt/core/error.h"
#include "nmt/data/text_file.h"

namespace nmt {
namespace {

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  for (std::size_t tab = line.find('\t'); tab != std::string::npos; tab = line.find('\t', start)) {
    fields.push_back(line.substr(start, tab - start));
    start = tab + 1;
  }
  fields.push_back(line.substr(start));
  return fields;
}

}  // namespace

bool is_tsv_column_number(const std::string& column) {
  return !column.empty() && column.size() < 6 && std::all_of(column.begin(), column.end(), [](char c) {
           return c >= '0' && c <= '9';
         }) && column[0] != '0';
}

namespace {

// Reads `path` row by row, checking every row's width, and gives `row` the fields of `columns`
// (in their order) and the row's line.
void for_each_tsv_row(const std::string& path, const std::vector<std::string>& columns,
                      const std::function<void(const std::vector<std::string>&, std::size_t)>& row) {
  const bool numbered = std::all_of(columns.begin(), columns.end(), is_tsv_column_number);
  TextLineReader reader(path);
  std::string line;
  std::vector<std::size_t> index;
  std::size_t width = 0;
  if (numbered) {
    for (const auto& c : columns) index.push_back(static_cast<std::size_t>(std::stoul(c)) - 1);
  } else {
    if (!reader.next(line)) throw DataError(path + ": empty (a TSV with named columns needs a header line)");
    const std::vector<std::string> header = split_tabs(line);
    width = header.size();
    for (const auto& c : columns) {
      const auto found = std::find(header.begin(), header.end(), c);
      if (found == header.end()) {
        throw ConfigError(path + ": no column '" + c + "' in its header line (" + std::to_string(header.size()) +
                          " columns; give names from it, or numbers from 1 for a file without a header)");
      }
      index.push_back(static_cast<std::size_t>(found - header.begin()));
    }
  }
  const std::size_t needed = index.empty() ? 0 : *std::max_element(index.begin(), index.end()) + 1;
  std::vector<std::string> asked(index.size());
  while (reader.next(line)) {
    const std::vector<std::string> fields = split_tabs(line);
    if (width == 0) width = fields.size();
    if (fields.size() != width) {
      throw DataError(path + ":" + std::to_string(reader.line_number()) + ": " + std::to_string(fields.size()) +
                      " columns, where the file's first line has " + std::to_string(width));
    }
    if (fields.size() < needed) {
      throw DataError(path + ":" + std::to_string(reader.line_number()) + ": " + std::to_string(fields.size()) +
                      " columns, and column " + std::to_string(needed) + " was asked for");
    }
    for (std::size_t c = 0; c < index.size(); ++c) asked[c] = fields[index[c]];
    row(asked, reader.line_number());
  }
}

}  // namespace

TsvColumns read_tsv_columns(const std::string& path, const std::vector<std::string>& columns) {
  TsvColumns out;
  out.fields.resize(columns.size());
  for_each_tsv_row(path, columns, [&](const std::vector<std::string>& fields, std::size_t line) {
    for (std::size_t c = 0; c < fields.size(); ++c) out.fields[c].push_back(fields[c]);
    out.lines.push_back(line);
  });
  return out;
}

void check_tsv_columns(const std::string& path, const std::vector<std::string>& columns) {
  for_each_tsv_row(path, columns, [](const std::vector<std::string>&, std::size_t) {});
}

}  // namespace nmt
