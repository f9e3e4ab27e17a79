#include "nmt/translate/shortlist_builder.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <filesystem>
#include <utility>

#include "nmt/core/error.h"
#include "nmt/core/file_io.h"
#include "nmt/core/log.h"
#include "nmt/core/sha256.h"
#include "nmt/data/text_file.h"
#include "nmt/data/tokenizer.h"
#include "nmt/model/checkpoint.h"

namespace nmt {
namespace {

constexpr std::int64_t kFirstPiece = SpecialIds::kEos + 1;  // ids below are specials
constexpr std::int64_t kCountBlock = 8 << 20;  // counters per pass over the corpus (32 MiB)

// The distinct non-special ids of a sentence, increasing.
std::vector<int> distinct_pieces(const std::vector<int>& ids, std::int64_t vocab, const char* side) {
  std::vector<int> out;
  for (const int id : ids) {
    if (id < 0 || id >= vocab) throw Error(std::string("dice_table: ") + side + " id " + std::to_string(id) + " out of range");
    if (id >= kFirstPiece) out.push_back(id);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

void ShortlistBuildOptions::validate() const {
  if (top_k < 1 || top_k > kMaxShortlistTopK) {
    throw ConfigError("--top-k must be in [1, " + std::to_string(kMaxShortlistTopK) + "], got " + std::to_string(top_k));
  }
  if (frequent < 0 || frequent > 1000000) {
    throw ConfigError("--frequent must be in [0, 1000000], got " + std::to_string(frequent));
  }
}

at::Tensor dice_table(const std::vector<std::vector<int>>& sources, const std::vector<std::vector<int>>& targets,
                      std::int64_t source_vocab, std::int64_t target_vocab, std::int64_t top_k) {
  if (sources.size() != targets.size()) throw Error("dice_table: sources and targets differ in number");
  if (source_vocab < 1 || target_vocab < 1 || top_k < 1 || top_k > kMaxShortlistTopK) {
    throw Error("dice_table: vocabularies must be >= 1 and top_k in [1, " + std::to_string(kMaxShortlistTopK) + "]");
  }
  // c(s), c(t), and for each source piece the sentences it occurs in (an inverted index: every
  // block of source pieces below visits only its own sentences).
  std::vector<std::vector<int>> tgt(targets.size());
  std::vector<std::vector<std::int32_t>> sentences_of(static_cast<std::size_t>(source_vocab));
  std::vector<std::int64_t> target_count(static_cast<std::size_t>(target_vocab));
  for (std::size_t i = 0; i < sources.size(); ++i) {
    tgt[i] = distinct_pieces(targets[i], target_vocab, "target");
    for (const int t : tgt[i]) ++target_count[static_cast<std::size_t>(t)];
    for (const int s : distinct_pieces(sources[i], source_vocab, "source")) {
      sentences_of[static_cast<std::size_t>(s)].push_back(static_cast<std::int32_t>(i));
    }
  }
  at::Tensor table = at::full({source_vocab, top_k}, -1, at::kInt);
  int* out = table.data_ptr<int>();
  // c(s, t) for a block of source pieces at a time, dense over the target vocabulary (32 MiB).
  const std::int64_t block = std::max<std::int64_t>(1, kCountBlock / target_vocab);
  std::vector<std::int32_t> together;
  for (std::int64_t first = kFirstPiece; first < source_vocab; first += block) {
    const std::int64_t last = std::min(source_vocab, first + block);
    together.assign(static_cast<std::size_t>((last - first) * target_vocab), 0);
    for (std::int64_t s = first; s < last; ++s) {
      std::int32_t* row = together.data() + (s - first) * target_vocab;
      for (const std::int32_t i : sentences_of[static_cast<std::size_t>(s)]) {
        for (const int t : tgt[static_cast<std::size_t>(i)]) ++row[t];
      }
    }
    for (std::int64_t s = first; s < last; ++s) {
      const std::int32_t* row = together.data() + (s - first) * target_vocab;
      const auto cs = static_cast<double>(sentences_of[static_cast<std::size_t>(s)].size());
      std::vector<int> listed;
      for (std::int64_t t = kFirstPiece; t < target_vocab; ++t) {
        if (row[t] > 0) listed.push_back(static_cast<int>(t));
      }
      const auto dice = [&](int t) {
        return 2.0 * row[t] / (cs + static_cast<double>(target_count[static_cast<std::size_t>(t)]));
      };
      const auto better = [&](int a, int b) {
        const double da = dice(a), db = dice(b);
        if (da != db) return da > db;
        if (row[a] != row[b]) return row[a] > row[b];
        return a < b;
      };
      const auto keep = std::min<std::int64_t>(top_k, static_cast<std::int64_t>(listed.size()));
      std::partial_sort(listed.begin(), listed.begin() + keep, listed.end(), better);
      for (std::int64_t j = 0; j < keep; ++j) out[s * top_k + j] = listed[static_cast<std::size_t>(j)];
    }
  }
  return table;
}

std::vector<std::int64_t> most_frequent_pieces(const std::vector<std::vector<int>>& targets, std::int64_t target_vocab,
                                               std::int64_t n) {
  std::vector<std::int64_t> count(static_cast<std::size_t>(std::max<std::int64_t>(target_vocab, 0)));
  for (const auto& sentence : targets) {
    for (const int t : sentence) {
      if (t >= kFirstPiece && t < target_vocab) ++count[static_cast<std::size_t>(t)];
    }
  }
  return most_frequent_pieces(count, n);
}

std::vector<std::int64_t> most_frequent_pieces(const std::vector<std::int64_t>& count, std::int64_t n) {
  const auto target_vocab = static_cast<std::int64_t>(count.size());
  std::vector<std::int64_t> ids;
  for (std::int64_t t = kFirstPiece; t < target_vocab; ++t) {
    if (count[static_cast<std::size_t>(t)] > 0) ids.push_back(t);
  }
  const auto keep = std::min<std::int64_t>(n, static_cast<std::int64_t>(ids.size()));
  std::partial_sort(ids.begin(), ids.begin() + keep, ids.end(), [&](std::int64_t a, std::int64_t b) {
    const auto ca = count[static_cast<std::size_t>(a)], cb = count[static_cast<std::size_t>(b)];
    return ca != cb ? ca > cb : a < b;
  });
  ids.resize(static_cast<std::size_t>(keep));
  std::sort(ids.begin(), ids.end());
  return ids;
}

ShortlistBuildSummary build_shortlist(const ShortlistBuildOptions& options) {
  options.validate();
  for (const auto& [role, input] : {std::pair<const char*, const std::string&>{"checkpoint", options.checkpoint},
                                    {"--source", options.source},
                                    {"--target", options.target}}) {
    std::error_code error;
    if (std::filesystem::equivalent(options.output, input, error)) {
      throw ConfigError("--output " + options.output + " is the " + role + " " + input +
                        ": a shortlist never replaces its inputs");
    }
  }
  refuse_existing_output(options.output, options.replace);
  const Checkpoint checkpoint = load_checkpoint(options.checkpoint);
  const Tokenizer& source_tokenizer = checkpoint.source_tokenizer;
  const Tokenizer& target_tokenizer = checkpoint.target_tokenizer;
  TextLineReader source_reader(options.source), target_reader(options.target);
  // Each sentence's distinct pieces only (what the counts need), and the target occurrences.
  std::vector<std::vector<int>> sources, targets;
  std::vector<std::int64_t> occurrences(static_cast<std::size_t>(target_tokenizer.vocab_size()));
  std::string source_line, target_line;
  const auto distinct = [](std::vector<int> ids) {
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    ids.shrink_to_fit();
    return ids;
  };
  while (true) {
    const bool more_source = source_reader.next(source_line), more_target = target_reader.next(target_line);
    if (more_source != more_target) {
      const TextLineReader& shorter = more_source ? target_reader : source_reader;
      const TextLineReader& longer = more_source ? source_reader : target_reader;
      throw DataError(shorter.path() + " ends after " + std::to_string(shorter.line_number()) + " lines, " +
                      longer.path() + " has more: the corpus sides must have one line per sentence each");
    }
    if (!more_source) break;
    sources.push_back(distinct(source_tokenizer.encode(source_line)));
    std::vector<int> target = target_tokenizer.encode(target_line);
    for (const int t : target) {
      if (t >= kFirstPiece && t < target_tokenizer.vocab_size()) ++occurrences[static_cast<std::size_t>(t)];
    }
    targets.push_back(distinct(std::move(target)));
  }
  if (sources.empty()) throw DataError(options.source + " is empty: no sentence to build a shortlist from");
  const at::Tensor table =
      dice_table(sources, targets, source_tokenizer.vocab_size(), target_tokenizer.vocab_size(), options.top_k);
  const LexicalShortlist shortlist(table, most_frequent_pieces(occurrences, options.frequent),
                                   target_tokenizer.vocab_size(), sha256_hex(source_tokenizer.model_bytes()),
                                   sha256_hex(target_tokenizer.model_bytes()), "dice");
  shortlist.save(options.output, options.replace);
  ShortlistBuildSummary summary;
  summary.sentences = static_cast<std::int64_t>(sources.size());
  summary.listed_pairs = table.ge(0).sum().item<std::int64_t>();
  summary.source_pieces = table.select(1, 0).ge(0).sum().item<std::int64_t>();
  log().info("shortlist {}: {} sentence pairs, {} source pieces with a list, {} entries (top {} by Dice), {} frequent "
             "target pieces",
             options.output, summary.sentences, summary.source_pieces, summary.listed_pairs, options.top_k,
             shortlist.frequent().size());
  return summary;
}

}  // namespace nmt
