// Line-by-line reading of UTF-8 text files (corpora, tokenizer training data).
#pragma once

#include <cstddef>
#include <istream>
#include <memory>
#include <string>

namespace nmt {

/// Reads a UTF-8 text file ("-": standard input) one line at a time. Strips the line terminator ("\n" or "\r\n") and a
/// byte-order mark at the start of the file. Throws IoError when the file cannot be opened or read
/// and DataError ("FILE:LINE: invalid UTF-8 at byte B") on malformed UTF-8.
class TextLineReader {
 public:
  explicit TextLineReader(std::string path);

  /// Reads the next line into `line`; false at the end of the file.
  bool next(std::string& line);

  /// 1-based number of the line last returned by next() (0 before the first).
  std::size_t line_number() const { return line_number_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::unique_ptr<std::istream> file_;  // null when reading standard input
  std::istream* in_;
  std::size_t line_number_ = 0;
};

}  // namespace nmt
