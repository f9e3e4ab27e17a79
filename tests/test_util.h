// Helpers shared by the test suites: temporary directories, fixture paths, the toy tokenizer.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "nmt/data/tokenizer.h"

namespace nmt::test {

/// A fresh directory under the system temp dir, removed when the object dies.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string path(const std::string& name) const { return (root_ / name).string(); }
  const std::filesystem::path& root() const { return root_; }

 private:
  std::filesystem::path root_;
};

/// A file under tests/data (e.g. "toy.es": 319 verse pairs of Genesis 1-12, RV1909 / WEB).
std::string data_path(const std::string& name);

/// Writes `content` to `path` byte for byte.
void write_text(const std::string& path, const std::string& content);
std::string read_text(const std::string& path);
std::vector<std::string> read_lines(const std::string& path);

/// A joint unigram model trained on toy.es + toy.en, once per test program and size.
const Tokenizer& toy_tokenizer(int vocab_size = 500);

/// Debian's Python, whose python3-torch (1.13 on Debian 12, 2.6 on 13) the interop tests use.
constexpr const char* kSystemPython = "/usr/bin/python3";
/// True when kSystemPython imports torch (checked once); the interop tests skip otherwise.
bool python_torch_available();

/// Asserts that `statement` throws `Exception` whose message contains every string in `parts`.
#define EXPECT_THROW_WITH(statement, Exception, ...)                                   \
  do {                                                                                 \
    try {                                                                              \
      statement;                                                                       \
      ADD_FAILURE() << "expected " #Exception " from " #statement;                     \
    } catch (const Exception& e) {                                                     \
      for (const std::string part : {__VA_ARGS__}) {                                   \
        EXPECT_NE(std::string(e.what()).find(part), std::string::npos)                 \
            << "message \"" << e.what() << "\" lacks \"" << part << "\"";             \
      }                                                                                \
    }                                                                                  \
  } while (0)

}  // namespace nmt::test
