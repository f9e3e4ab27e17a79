#include "nmt/data/text_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string_view>

#include "nmt/core/error.h"
#include "nmt/data/utf8.h"

namespace nmt {
namespace {

std::ifstream open_text(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw IoError("cannot read " + path + ": is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError("cannot open " + path + ": " + std::strerror(errno));
  return in;
}

}  // namespace

TextLineReader::TextLineReader(std::string path) : path_(std::move(path)) {
  if (path_ == "-") {
    in_ = &std::cin;
    path_ = "<stdin>";
  } else {
    file_ = std::make_unique<std::ifstream>(open_text(path_));
    in_ = file_.get();
  }
}

bool TextLineReader::next(std::string& line) {
  if (!std::getline(*in_, line)) {
    if (in_->bad()) throw IoError("cannot read " + path_ + ": " + std::strerror(errno));
    return false;
  }
  ++line_number_;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  std::size_t stripped = 0;  // so that byte offsets count from the start of the line in the file
  if (line_number_ == 1 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) {
    line.erase(0, 3);
    stripped = 3;
  }
  // NUL is valid UTF-8 but never text: it marks a binary file, and SentencePiece would cut the line at it.
  const std::size_t nul = line.find('\0');
  if (nul != std::string::npos) {
    throw DataError(path_ + ":" + std::to_string(line_number_) + ": NUL byte at byte " +
                    std::to_string(nul + stripped + 1) + " (a binary file?)");
  }
  const std::size_t bad = find_invalid_utf8(line);
  if (bad != std::string_view::npos) {
    throw DataError(path_ + ":" + std::to_string(line_number_) + ": invalid UTF-8 at byte " +
                    std::to_string(bad + stripped + 1));
  }
  return true;
}

}  // namespace nmt
