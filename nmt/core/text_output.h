// Where a program writes its text output: stdout ("-" or empty) or a file that appears only
// complete (written to a temporary file and renamed by finish(); file_io.h's AtomicOutputFile).
#pragma once

#include <memory>
#include <ostream>
#include <string>

namespace nmt {

class TextOutput {
 public:
  explicit TextOutput(const std::string& path);  // throws IoError
  ~TextOutput();
  std::ostream& stream();
  void finish();  // throws IoError

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nmt
