// Fuzz target: the UTF-8 line reader (nmt/data/text_file.h, utf8.h) and the parallel corpus loader
// (nmt/data/parallel_corpus.h).
//
// Input: SOURCE [0xFF TARGET]. The first 0xFF byte (never valid in UTF-8) splits the input into the
// source and target files; without one both files hold the whole input. Checks, besides the absence
// of crashes and sanitizer reports:
//   - find_invalid_utf8 agrees with an independent decoder (RFC 3629, written differently);
//   - TextLineReader returns exactly the lines of a reference splitter (BOM, "\r\n", last line
//     without "\n"), or throws DataError naming the first line with a NUL byte or invalid UTF-8,
//     and the byte;
//   - ParallelCorpus::load succeeds when both files are valid and as long as each other, throws
//     DataError otherwise (never anything else), and its counts and spans are consistent.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "nmt/core/error.h"
#include "nmt/data/parallel_corpus.h"
#include "nmt/data/text_file.h"
#include "nmt/data/tokenizer.h"
#include "nmt/data/utf8.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

using nmt::fuzz::MemoryFile;

// Independent check of one code point: decode it, then reject what RFC 3629 forbids.
std::size_t reference_invalid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto byte = [&](std::size_t k) { return static_cast<std::uint32_t>(static_cast<unsigned char>(text[k])); };
    const std::uint32_t b0 = byte(i);
    std::size_t length;
    std::uint32_t code;
    if (b0 < 0x80) {
      length = 1, code = b0;
    } else if ((b0 & 0xE0) == 0xC0) {
      length = 2, code = b0 & 0x1F;
    } else if ((b0 & 0xF0) == 0xE0) {
      length = 3, code = b0 & 0x0F;
    } else if ((b0 & 0xF8) == 0xF0) {
      length = 4, code = b0 & 0x07;
    } else {
      return i;
    }
    if (text.size() - i < length) return i;
    for (std::size_t k = 1; k < length; ++k) {
      if ((byte(i + k) & 0xC0) != 0x80) return i;
      code = (code << 6) | (byte(i + k) & 0x3F);
    }
    static const std::uint32_t kMinimum[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < kMinimum[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return i;
    i += length;
  }
  return std::string_view::npos;
}

struct ExpectedLines {
  std::vector<std::string> lines;  // up to and including the first invalid one
  std::size_t invalid_line = 0;    // 1-based; 0: all valid
  std::string message;             // after "FILE:LINE: ", for the invalid line
};

// What TextLineReader must return: lines split at '\n' (a final '\n' ends the last line), one
// trailing '\r' removed, a UTF-8 byte-order mark removed from the first line.
ExpectedLines expected_lines(std::string_view file) {
  ExpectedLines out;
  std::size_t begin = 0;
  while (begin < file.size()) {
    std::size_t end = file.find('\n', begin);
    if (end == std::string_view::npos) end = file.size();
    std::string line(file.substr(begin, end - begin));
    begin = end + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::size_t stripped = 0;
    if (out.lines.empty() && line.compare(0, 3, "\xEF\xBB\xBF") == 0) {
      line.erase(0, 3);
      stripped = 3;
    }
    // A NUL byte (valid UTF-8, but a sign of a binary file) is reported first, then invalid UTF-8.
    const std::size_t nul = line.find('\0');
    const std::size_t bad = reference_invalid_utf8(line);
    out.lines.push_back(std::move(line));
    if (nul != std::string::npos) {
      out.invalid_line = out.lines.size();
      out.message = "NUL byte at byte " + std::to_string(nul + stripped + 1) + " (a binary file?)";
      break;
    }
    if (bad != std::string_view::npos) {
      out.invalid_line = out.lines.size();
      out.message = "invalid UTF-8 at byte " + std::to_string(bad + stripped + 1);
      break;
    }
  }
  return out;
}

void check_reader(const MemoryFile& file, const ExpectedLines& expected) {
  std::vector<std::string> lines;
  try {
    nmt::TextLineReader reader(file.path());
    for (std::string line; reader.next(line);) {
      lines.push_back(line);
      FUZZ_CHECK(reader.line_number() == lines.size(), "line_number() counts the lines returned");
    }
    FUZZ_CHECK(expected.invalid_line == 0, "line " + std::to_string(expected.invalid_line) + ": '" +
                                               expected.message + "' was not reported");
  } catch (const nmt::DataError& e) {
    FUZZ_CHECK(expected.invalid_line != 0, std::string("DataError on valid input: ") + e.what());
    const std::string message = file.path() + ":" + std::to_string(expected.invalid_line) + ": " + expected.message;
    FUZZ_CHECK(e.what() == message, std::string("message '") + e.what() + "', expected '" + message + "'");
    FUZZ_CHECK(lines.size() + 1 == expected.invalid_line, "lines returned before the invalid one");
    lines.push_back(expected.lines.back());  // compared below with what was valid before it
  } catch (const std::exception& e) {
    FUZZ_UNEXPECTED("TextLineReader", e);
  }
  FUZZ_CHECK(lines.size() == expected.lines.size(),
             std::to_string(lines.size()) + " lines, expected " + std::to_string(expected.lines.size()));
  for (std::size_t i = 0; i + (expected.invalid_line ? 1 : 0) < lines.size(); ++i) {
    FUZZ_CHECK(lines[i] == expected.lines[i], "line " + std::to_string(i + 1) + " differs");
  }
}

const nmt::Tokenizer& tokenizer() {
  static const nmt::Tokenizer loaded =
      nmt::Tokenizer::load(nmt::fuzz::fuzz_path("corpus/tokenizer_model/seed-unigram"));
  return loaded;
}

void check_corpus(const MemoryFile& source, const MemoryFile& target, const ExpectedLines& source_lines,
                  const ExpectedLines& target_lines) {
  nmt::CorpusFilterOptions filter;
  filter.max_length = 24;
  filter.max_length_ratio = 3.0;
  const bool valid = source_lines.invalid_line == 0 && target_lines.invalid_line == 0;
  const bool same_length = source_lines.lines.size() == target_lines.lines.size();
  try {
    const auto corpus = nmt::ParallelCorpus::load(source.path(), target.path(), tokenizer(), tokenizer(), filter);
    FUZZ_CHECK(valid && same_length, "load accepted invalid UTF-8 or files of different lengths");
    const auto& counts = corpus.counts();
    FUZZ_CHECK(counts.lines == source_lines.lines.size(), "counts.lines is the number of line pairs");
    FUZZ_CHECK(counts.lines == counts.kept + counts.empty + counts.too_long + counts.bad_ratio,
               "lines = kept + empty + too_long + bad_ratio");
    FUZZ_CHECK(counts.kept == corpus.size(), "kept = size()");
    std::size_t source_tokens = 0, target_tokens = 0, previous_line = 0;
    for (std::size_t i = 0; i < corpus.size(); ++i) {
      const auto s = corpus.source(i), t = corpus.target(i);
      FUZZ_CHECK(s.size > 0 && t.size > 0, "kept pairs have two non-empty sides");
      FUZZ_CHECK(s.size <= 24 && t.size <= 24, "max_length applied");
      const std::size_t longest = std::max(s.size, t.size), shortest = std::min(s.size, t.size);
      FUZZ_CHECK(static_cast<double>(longest) <= 3.0 * static_cast<double>(shortest), "max_length_ratio applied");
      for (const auto id : s) FUZZ_CHECK(id > nmt::SpecialIds::kEos || id == nmt::SpecialIds::kUnk, "source id");
      for (const auto id : t) FUZZ_CHECK(id > nmt::SpecialIds::kEos || id == nmt::SpecialIds::kUnk, "target id");
      FUZZ_CHECK(corpus.line_number(i) > previous_line && corpus.line_number(i) <= counts.lines,
                 "line numbers increase within the file");
      previous_line = corpus.line_number(i);
      // The kept line is the one the reader returned for that number, tokenized.
      FUZZ_CHECK(tokenizer().encode(source_lines.lines[previous_line - 1]) == std::vector<int>(s.begin(), s.end()),
                 "source ids are those of the line named");
      source_tokens += s.size;
      target_tokens += t.size;
    }
    FUZZ_CHECK(source_tokens == corpus.source_tokens() && target_tokens == corpus.target_tokens(), "token totals");
    (void)corpus.fingerprint();
  } catch (const nmt::DataError& e) {
    FUZZ_CHECK(!(valid && same_length), std::string("DataError on valid, aligned files: ") + e.what());
    if (valid) {
      FUZZ_CHECK(std::string(e.what()).find("differ in length") != std::string::npos,
                 std::string("unexpected message: ") + e.what());
    }
  } catch (const std::exception& e) {
    FUZZ_UNEXPECTED("ParallelCorpus::load", e);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static MemoryFile source("fuzz-source"), target("fuzz-target");
  const std::string_view input = nmt::fuzz::as_view(data, size);

  const std::size_t bad = nmt::find_invalid_utf8(input);
  const std::size_t expected_bad = reference_invalid_utf8(input);
  FUZZ_CHECK(bad == expected_bad,
             "find_invalid_utf8 says " + std::to_string(bad) + ", the reference " + std::to_string(expected_bad));

  const std::size_t split = input.find('\xFF');
  const std::string_view source_text = split == std::string_view::npos ? input : input.substr(0, split);
  const std::string_view target_text = split == std::string_view::npos ? input : input.substr(split + 1);
  source.set(source_text);
  target.set(target_text);
  const ExpectedLines source_lines = expected_lines(source_text);
  const ExpectedLines target_lines = expected_lines(target_text);
  check_reader(source, source_lines);
  check_corpus(source, target, source_lines, target_lines);
  return 0;
}
