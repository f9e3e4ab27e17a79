#include "tests/test_util.h"

#include <cstdlib>

#include <unistd.h>

#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "nmt/data/tokenizer_training.h"

namespace nmt::test {
namespace fs = std::filesystem;

TempDir::TempDir() {
  std::random_device device;
  for (int attempt = 0; attempt < 100; ++attempt) {
    root_ = fs::temp_directory_path() /
            ("nmt-test-" + std::to_string(::getpid()) + "-" + std::to_string(device()));
    if (fs::create_directory(root_)) return;
  }
  throw std::runtime_error("cannot create a temporary directory");
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(root_, ec);
}

bool python_torch_available() {
  static const bool available =
      std::system((std::string(kSystemPython) + " -c 'import torch' >/dev/null 2>&1").c_str()) == 0;
  return available;
}

std::string data_path(const std::string& name) { return std::string(NMT_TEST_DATA_DIR) + "/" + name; }

void write_text(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  out << content;
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

const Tokenizer& toy_tokenizer(int vocab_size) {
  static const TempDir dir;
  static std::map<int, Tokenizer> trained;
  auto found = trained.find(vocab_size);
  if (found == trained.end()) {
    TokenizerTrainOptions options;
    options.input_files = {data_path("toy.es"), data_path("toy.en")};
    options.model_path = dir.path("toy" + std::to_string(vocab_size) + ".model");
    options.vocab_size = vocab_size;
    found = trained.emplace(vocab_size, train_tokenizer(options)).first;
  }
  return found->second;
}

}  // namespace nmt::test
