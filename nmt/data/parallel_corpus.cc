#include "nmt/data/parallel_corpus.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "nmt/core/error.h"
#include "nmt/data/text_file.h"

namespace nmt {
namespace {

bool is_blank(const std::string& line) {
  return line.find_first_not_of(" \t\v\f\r") == std::string::npos;
}

// FNV-1a over 32-bit words.
void hash_word(std::uint64_t& hash, std::uint64_t word) {
  for (int byte = 0; byte < 4; ++byte) {
    hash ^= (word >> (8 * byte)) & 0xFF;
    hash *= 1099511628211ull;
  }
}

// Reads the two files line by line and gives `pair` each pair and its line. Files that end at
// different lines are a DataError with both totals (what is left of the longer one is counted).
void for_each_line_pair(const std::string& source_path, const std::string& target_path,
                        const std::function<void(const std::string&, const std::string&, std::size_t)>& pair) {
  TextLineReader source(source_path);
  TextLineReader target(target_path);
  std::string source_line, target_line;
  while (true) {
    const bool has_source = source.next(source_line);
    const bool has_target = target.next(target_line);
    if (has_source && has_target) {
      pair(source_line, target_line, source.line_number());
      continue;
    }
    if (has_source == has_target) return;
    TextLineReader& longer = has_source ? source : target;
    std::size_t longer_lines = longer.line_number();
    std::string rest;
    while (longer.next(rest)) longer_lines = longer.line_number();
    const std::size_t source_lines = has_source ? longer_lines : source.line_number();
    const std::size_t target_lines = has_target ? longer_lines : target.line_number();
    throw DataError("parallel corpus files differ in length: " + source_path + " has " + std::to_string(source_lines) +
                    " lines, " + target_path + " has " + std::to_string(target_lines));
  }
}

}  // namespace

void check_parallel_files(const std::string& source_path, const std::string& target_path) {
  for_each_line_pair(source_path, target_path, [](const std::string&, const std::string&, std::size_t) {});
}

std::vector<int> with_tag(int tag, TokenSpan ids) {
  std::vector<int> out;
  out.reserve(ids.size + 1);
  if (tag >= 0) out.push_back(tag);
  out.insert(out.end(), ids.begin(), ids.end());
  return out;
}

void CorpusFilterOptions::validate() const {
  if (max_length < 0) throw ConfigError("max length must be >= 0 (0: no limit), got " + std::to_string(max_length));
  if (max_length_ratio != 0 && !(max_length_ratio >= 1.0)) {
    throw ConfigError("max length ratio must be >= 1 (0: no limit), got " + std::to_string(max_length_ratio));
  }
}

void ParallelCorpus::add(const std::vector<int>& source, const std::vector<int>& target, std::size_t line) {
  source_ids_.insert(source_ids_.end(), source.begin(), source.end());
  target_ids_.insert(target_ids_.end(), target.begin(), target.end());
  source_offsets_.push_back(source_ids_.size());
  target_offsets_.push_back(target_ids_.size());
  line_numbers_.push_back(line);
}

ParallelCorpus ParallelCorpus::load(const std::string& source_path, const std::string& target_path,
                                    const Tokenizer& source_tokenizer, const Tokenizer& target_tokenizer,
                                    const CorpusFilterOptions& filter) {
  filter.validate();
  ParallelCorpus corpus;
  corpus.name_ = source_path + " and " + target_path;
  for_each_line_pair(source_path, target_path,
                     [&](const std::string& source_line, const std::string& target_line, std::size_t line) {
                       corpus.take(source_line, target_line, line, source_tokenizer, target_tokenizer, filter,
                                   source_path);
                     });
  corpus.finish();
  return corpus;
}

ParallelCorpus ParallelCorpus::from_texts(const std::vector<std::string>& sources,
                                          const std::vector<std::string>& targets,
                                          const std::vector<std::size_t>& lines, const Tokenizer& source_tokenizer,
                                          const Tokenizer& target_tokenizer, const CorpusFilterOptions& filter,
                                          const std::string& name) {
  filter.validate();
  if (sources.size() != targets.size() || sources.size() != lines.size()) {
    throw Error("ParallelCorpus::from_texts: the sides differ in length (a bug of the caller)");
  }
  ParallelCorpus corpus;
  corpus.name_ = name;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    corpus.take(sources[i], targets[i], lines[i], source_tokenizer, target_tokenizer, filter, name);
  }
  corpus.finish();
  return corpus;
}

void ParallelCorpus::take(const std::string& source_line, const std::string& target_line, std::size_t line,
                          const Tokenizer& source_tokenizer, const Tokenizer& target_tokenizer,
                          const CorpusFilterOptions& filter, const std::string& where) {
  ++counts_.lines;
  if (is_blank(source_line) || is_blank(target_line)) {
    ++counts_.empty;
    return;
  }
  std::vector<int> source, target;
  try {
    source = source_tokenizer.encode(source_line);
    target = target_tokenizer.encode(target_line);
  } catch (const Error& e) {
    throw DataError(where + ":" + std::to_string(line) + ": " + e.what());
  }
  if (source.empty() || target.empty()) {  // e.g. only characters the normaliser removes
    ++counts_.empty;
    return;
  }
  const auto longest = std::max(source.size(), target.size());
  const auto shortest = std::min(source.size(), target.size());
  if (filter.max_length > 0 && longest > static_cast<std::size_t>(filter.max_length)) {
    ++counts_.too_long;
    return;
  }
  if (filter.max_length_ratio > 0 &&
      static_cast<double>(longest) > filter.max_length_ratio * static_cast<double>(shortest)) {
    ++counts_.bad_ratio;
    return;
  }
  add(source, target, line);
}

void ParallelCorpus::finish() {
  counts_.kept = size();
  source_ids_.shrink_to_fit();
  target_ids_.shrink_to_fit();
}

ParallelCorpus ParallelCorpus::from_sequences(const std::vector<std::vector<int>>& source,
                                              const std::vector<std::vector<int>>& target) {
  if (source.size() != target.size()) {
    throw DataError("parallel sequences differ in number: " + std::to_string(source.size()) +
                    " source, " + std::to_string(target.size()) + " target");
  }
  ParallelCorpus corpus;
  for (std::size_t i = 0; i < source.size(); ++i) {
    if (source[i].empty() || target[i].empty()) {
      throw DataError("parallel sequence " + std::to_string(i + 1) + " has an empty side");
    }
    corpus.add(source[i], target[i], i + 1);
  }
  corpus.counts_.lines = corpus.counts_.kept = corpus.size();
  return corpus;
}

std::uint64_t ParallelCorpus::fingerprint() const {
  std::uint64_t hash = 14695981039346656037ull;
  hash_word(hash, size());
  for (std::size_t i = 0; i < size(); ++i) {
    hash_word(hash, source(i).size);
    for (const auto id : source(i)) hash_word(hash, static_cast<std::uint32_t>(id));
    hash_word(hash, target(i).size);
    for (const auto id : target(i)) hash_word(hash, static_cast<std::uint32_t>(id));
  }
  return hash;
}

}  // namespace nmt
