#include "nmt/data/tokenize_files.h"

#include <functional>
#include <sstream>
#include <vector>

#include "nmt/core/error.h"
#include "nmt/core/text_output.h"
#include "nmt/data/text_file.h"

namespace nmt {
namespace {

// Applies `line_fn` to every input line; empty lines stay empty.
void map_lines(const TokenizeFilesOptions& files, const std::function<std::string(const std::string&)>& line_fn) {
  TextLineReader reader(files.input);
  TextOutput output(files.output);
  std::string line;
  while (reader.next(line)) {
    std::string result;
    try {
      result = line_fn(line);
    } catch (const Error& e) {
      throw DataError(reader.path() + ":" + std::to_string(reader.line_number()) + ": " + e.what());
    }
    output.stream() << result << '\n';
  }
  output.finish();
}

template <typename T>
std::string join(const std::vector<T>& items) {
  std::ostringstream out;
  for (std::size_t i = 0; i < items.size(); ++i) out << (i ? " " : "") << items[i];
  return out.str();
}

std::vector<std::string> split(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

}  // namespace

void encode_file(const TokenizeFilesOptions& files, const EncodeOptions& options) {
  const Tokenizer tokenizer = Tokenizer::load(files.model);
  if (options.sample) options.sampling.validate();
  std::uint32_t line_seed = options.seed;
  map_lines(files, [&](const std::string& line) {
    if (options.sample) {
      const auto ids = tokenizer.sample_encode({line}, options.sampling, line_seed++).front();
      if (!files.pieces) return join(ids);
      std::vector<std::string> pieces;
      for (const int id : ids) pieces.push_back(tokenizer.id_to_piece(id));
      return join(pieces);
    }
    return files.pieces ? join(tokenizer.encode_pieces(line)) : join(tokenizer.encode(line));
  });
}

void decode_file(const TokenizeFilesOptions& files) {
  const Tokenizer tokenizer = Tokenizer::load(files.model);
  map_lines(files, [&](const std::string& line) {
    const auto words = split(line);
    if (files.pieces) return tokenizer.decode_pieces(words);
    std::vector<int> ids;
    for (const auto& word : words) {
      std::size_t used = 0;
      int id = -1;
      try {
        id = std::stoi(word, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != word.size()) throw DataError("'" + word + "' is not a token id");
      ids.push_back(id);
    }
    return tokenizer.decode(ids);
  });
}

}  // namespace nmt
