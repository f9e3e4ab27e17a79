#include "nmt/data/corpus_preparation.h"

#include <glib.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <unordered_set>

#include "nmt/core/error.h"
#include "nmt/core/file_io.h"
#include "nmt/data/text_file.h"
#include "nmt/data/tsv_columns.h"
#include "nmt/data/utf8.h"

namespace nmt {
namespace {

constexpr std::size_t kExamples = 3;  // examples kept per reason

struct Pair {
  std::int64_t line;  // input line (TSV: the file's line; Moses: the pair's)
  std::string source, target, key;
};

std::int64_t word_count(const std::string& text) {
  std::int64_t words = 0;
  bool in_word = false;
  for (const char c : text) {
    const bool space = c == ' ';
    if (!space && !in_word) ++words;
    in_word = !space;
  }
  return words;
}

// The TSV's pairs: columns by number (no header) or by the names of its first line.
std::vector<Pair> read_tsv(const CorpusPreparation& o) {
  std::vector<std::string> columns = {o.source_column, o.target_column};
  if (!o.key_column.empty()) columns.push_back(o.key_column);
  const TsvColumns table = read_tsv_columns(o.tsv, columns);
  std::vector<Pair> pairs;
  for (std::size_t r = 0; r < table.lines.size(); ++r) {
    pairs.push_back({static_cast<std::int64_t>(table.lines[r]), table.fields[0][r], table.fields[1][r],
                     columns.size() > 2 ? table.fields[2][r] : std::string()});
  }
  return pairs;
}

// Line-parallel files: the same number of lines in each, or an error naming both counts.
std::vector<Pair> read_parallel(const CorpusPreparation& o) {
  std::vector<std::unique_ptr<TextLineReader>> readers;
  for (const std::string* path : {&o.source, &o.target, &o.key_file}) {
    if (!path->empty()) readers.push_back(std::make_unique<TextLineReader>(*path));
  }
  std::vector<Pair> pairs;
  std::vector<std::string> lines(readers.size());
  for (;;) {
    std::size_t ended = 0;
    for (std::size_t i = 0; i < readers.size(); ++i) ended += readers[i]->next(lines[i]) ? 0 : 1;
    if (ended == readers.size()) return pairs;
    if (ended > 0) {  // each file's count, read to its end
      std::string counts;
      for (const auto& r : readers) {
        for (std::string rest; r->next(rest);) {
        }
        counts += (counts.empty() ? "" : ", ") + r->path() + " has " + std::to_string(r->line_number());
      }
      throw DataError("the input files are not line-parallel: " + counts + " lines");
    }
    pairs.push_back({static_cast<std::int64_t>(pairs.size() + 1), lines[0], lines[1], readers.size() > 2 ? lines[2] : ""});
  }
}

DroppedPairs& reason(PreparationReport& report, const std::string& name) {
  for (DroppedPairs& d : report.dropped) {
    if (d.reason == name) return d;
  }
  throw std::logic_error("corpus preparation: no reason " + name);
}

void drop(PreparationReport& report, const std::string& name, const Pair& pair) {
  DroppedPairs& d = reason(report, name);
  ++d.count;
  if (d.examples.size() < kExamples) d.examples.emplace_back(pair.line, pair.source + " ||| " + pair.target);
}

// Cleans every pair and keeps those that pass the filters, in order (the first of duplicates).
std::vector<Pair> filter(std::vector<Pair> pairs, const CorpusPreparation& o, PreparationReport& report) {
  for (const char* name : {"empty", "identical", "too long", "length ratio", "duplicate"}) report.dropped.push_back({name, 0, {}});
  std::vector<Pair> kept;
  std::unordered_set<std::string> seen;
  for (Pair& pair : pairs) {
    std::string source = clean_segment(pair.source), target = clean_segment(pair.target);
    if (source != pair.source || target != pair.target) ++report.cleaned;
    pair.source = std::move(source);
    pair.target = std::move(target);
    const std::int64_t s = word_count(pair.source), t = word_count(pair.target);
    if (s == 0 || t == 0) {
      drop(report, "empty", pair);
    } else if (!o.keep_identical && pair.source == pair.target) {
      drop(report, "identical", pair);
    } else if (o.max_words > 0 && std::max(s, t) > o.max_words) {
      drop(report, "too long", pair);
    } else if (o.max_ratio > 0 && static_cast<double>(std::max(s, t)) > o.max_ratio * static_cast<double>(std::min(s, t))) {
      drop(report, "length ratio", pair);
    } else if (!seen.insert(pair.source + '\t' + pair.target).second) {
      drop(report, "duplicate", pair);
    } else {
      kept.push_back(std::move(pair));
    }
  }
  return kept;
}

// Which split each kept pair goes to (0 train, 1 dev, 2 test): the groups in a seeded shuffle
// (Fisher-Yates with mt19937_64: the same on every platform), test first, then dev, whole groups
// until each has its size.
std::vector<int> split(const std::vector<Pair>& pairs, const CorpusPreparation& o, PreparationReport& report) {
  std::map<std::string, std::vector<std::size_t>> by_key;
  std::vector<std::string> order;  // keys in order of first appearance
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const std::string key = o.key_file.empty() && o.key_column.empty() ? std::to_string(i) : pairs[i].key;
    auto [it, fresh] = by_key.try_emplace(key);
    if (fresh) order.push_back(key);
    it->second.push_back(i);
  }
  report.groups = static_cast<std::int64_t>(order.size());
  std::mt19937_64 random(o.seed);
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[random() % i]);
  std::vector<int> where(pairs.size(), 0);
  std::int64_t taken[3] = {0, 0, 0};
  const std::int64_t wanted[3] = {0, o.dev_size, o.test_size};
  for (const std::string& key : order) {
    int part = 0;
    if (taken[2] < wanted[2]) {
      part = 2;
    } else if (taken[1] < wanted[1]) {
      part = 1;
    }
    for (const std::size_t i : by_key[key]) where[i] = part;
    taken[part] += static_cast<std::int64_t>(by_key[key].size());
  }
  report.train = taken[0];
  report.dev = taken[1];
  report.test = taken[2];
  if (report.train == 0) {
    throw ConfigError("dev-size " + std::to_string(o.dev_size) + " and test-size " + std::to_string(o.test_size) +
                      " leave no training pairs of the " + std::to_string(pairs.size()) + " kept");
  }
  return where;
}

std::string output_path(const CorpusPreparation& o, const char* part, const std::string& suffix) {
  return (std::filesystem::path(o.output_dir) / (std::string(part) + "." + suffix)).string();
}

}  // namespace

void CorpusPreparation::validate() const {
  const bool files = !source.empty() || !target.empty(), table = !tsv.empty();
  if (files == table) throw ConfigError("give --source and --target, or --tsv (not both)");
  if (files && (source.empty() || target.empty())) throw ConfigError("--source and --target go together");
  if (table && (source_column.empty() || target_column.empty())) {
    throw ConfigError("--tsv needs --source-column and --target-column");
  }
  if (files && !key_column.empty()) throw ConfigError("--key-column is for --tsv; with --source give --key-file");
  if (table && !key_file.empty()) throw ConfigError("--key-file is for --source/--target; with --tsv give --key-column");
  if (output_dir.empty()) throw ConfigError("--output-dir is required");
  for (const std::string* suffix : {&source_suffix, &target_suffix}) {
    if (suffix->empty() || suffix->find('/') != std::string::npos) {
      throw ConfigError("--source-suffix and --target-suffix must be non-empty names without '/', got '" + *suffix + "'");
    }
  }
  if (source_suffix == target_suffix) throw ConfigError("--source-suffix and --target-suffix are both '" + source_suffix + "'");
  if (max_words < 0) throw ConfigError("--max-words must be >= 0, got " + std::to_string(max_words));
  if (!(max_ratio == 0 || max_ratio >= 1)) {
    std::ostringstream shown;
    shown << max_ratio;
    throw ConfigError("--max-ratio must be 0 or >= 1, got " + shown.str());
  }
  if (dev_size < 0 || test_size < 0) throw ConfigError("--dev-size and --test-size must be >= 0");
}

std::string clean_segment(std::string_view text) {
  std::unique_ptr<gchar, decltype(&g_free)> composed(
      g_utf8_normalize(text.data(), static_cast<gssize>(text.size()), G_NORMALIZE_NFC), &g_free);
  if (composed == nullptr) throw DataError("not valid UTF-8: " + std::string(text.substr(0, 40)));
  std::string out;
  bool space = true;  // trims the start
  for (const char* p = composed.get(); *p != '\0'; p = g_utf8_next_char(p)) {
    const gunichar c = g_utf8_get_char(p);
    const bool control = c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0xFEFF;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (!space) out += ' ';
      space = true;
    } else if (!control) {
      append_utf8(out, static_cast<char32_t>(c));
      space = false;
    }
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

PreparationReport prepare_corpus(const CorpusPreparation& o) {
  o.validate();
  const char* parts[] = {"train", "dev", "test"};
  std::vector<std::string> outputs;
  for (const char* part : parts) {
    for (const std::string* suffix : {&o.source_suffix, &o.target_suffix}) outputs.push_back(output_path(o, part, *suffix));
  }
  for (const std::string& path : outputs) refuse_existing_output(path, o.replace);  // before any work
  PreparationReport report;
  std::vector<Pair> pairs = o.tsv.empty() ? read_parallel(o) : read_tsv(o);
  report.read = static_cast<std::int64_t>(pairs.size());
  pairs = filter(std::move(pairs), o, report);
  report.kept = static_cast<std::int64_t>(pairs.size());
  const std::vector<int> where = split(pairs, o, report);
  std::string text[3][2];
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    text[where[i]][0] += pairs[i].source + '\n';
    text[where[i]][1] += pairs[i].target + '\n';
  }
  std::error_code error;
  std::filesystem::create_directories(o.output_dir, error);
  if (error || !std::filesystem::is_directory(o.output_dir)) {
    throw IoError("cannot make the output folder " + o.output_dir + ": " + (error ? error.message() : "a file of that name exists"));
  }
  for (std::size_t p = 0; p < 3; ++p) {
    for (std::size_t side = 0; side < 2; ++side) {
      write_file_atomic(outputs[2 * p + side], text[p][side]);
      report.files.push_back(outputs[2 * p + side]);
    }
  }
  return report;
}

std::string format_preparation_report(const PreparationReport& r) {
  std::ostringstream out;
  out << "read " << r.read << " pairs, cleaned the text of " << r.cleaned << ", kept " << r.kept << "\n";
  for (const DroppedPairs& d : r.dropped) {
    out << "  dropped " << d.count << " " << d.reason << "\n";
    for (const auto& [line, text] : d.examples) out << "    line " << line << ": " << text.substr(0, 160) << "\n";
  }
  out << "split " << r.groups << " group(s): train " << r.train << ", dev " << r.dev << ", test " << r.test << " pairs\n";
  return out.str();
}

std::string preparation_report_json(const PreparationReport& r) {
  nlohmann::ordered_json json = {{"read", r.read}, {"cleaned", r.cleaned}, {"kept", r.kept}};
  nlohmann::ordered_json dropped = nlohmann::ordered_json::object();
  for (const DroppedPairs& d : r.dropped) {
    nlohmann::ordered_json examples = nlohmann::ordered_json::array();
    for (const auto& [line, text] : d.examples) examples.push_back({{"line", line}, {"pair", text}});
    dropped[d.reason] = {{"count", d.count}, {"examples", examples}};
  }
  json["dropped"] = dropped;
  json["groups"] = r.groups;
  json["split"] = {{"train", r.train}, {"dev", r.dev}, {"test", r.test}};
  json["files"] = r.files;
  return json.dump(1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace nmt
