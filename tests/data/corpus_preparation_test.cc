// nmt-corpus prepare's library (nmt/data/corpus_preparation.h): cleaning by hand, each filter and
// its count and examples, the seeded split (grouped: no key in two splits; the same seed, the same
// split), TSV columns by name and by number, and bad input that writes nothing.
#include "nmt/data/corpus_preparation.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "nmt/core/error.h"
#include "tests/test_util.h"

namespace nmt {
namespace {

std::vector<std::string> lines_of(const std::string& path) {
  std::istringstream in(test::read_text(path));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

const DroppedPairs& dropped(const PreparationReport& report, const std::string& reason) {
  for (const DroppedPairs& d : report.dropped) {
    if (d.reason == reason) return d;
  }
  throw std::logic_error("no reason " + reason);
}

TEST(CorpusPreparation, CleaningComposesRemovesControlsAndCollapsesSpaces) {
  // "e" + COMBINING ACUTE ACCENT (U+0301) composes to "é" (U+00E9); U+0007, U+0085 and U+FEFF go;
  // a tab and runs of spaces become one space; the ends are trimmed.
  EXPECT_EQ(clean_segment("  Jose\xCC\x81\tdijo\x07  :\xC2\x85 hola\xEF\xBB\xBF  "), "Jos\xC3\xA9 dijo : hola");
  EXPECT_EQ(clean_segment("ya limpio"), "ya limpio");
  EXPECT_EQ(clean_segment(" \t "), "");
}

// Twelve pairs, one per filter and the rest good: each drop counted once, with the line as example.
TEST(CorpusPreparation, FiltersCountEachReasonWithExamples) {
  test::TempDir dir;
  test::write_text(dir.path("in.es"), "uno\n\nigual\ndos palabras aqui\nuno\ncinco\nseis\nsiete\nocho\n"
                                      "a b c d e f g h\nnueve\ndiez\n");
  test::write_text(dir.path("in.en"), "one\nempty\nigual\ntwo\none\nfive\nsix\nseven\neight\ntoo\nnine\nten\n");
  CorpusPreparation o;
  o.source = dir.path("in.es");
  o.target = dir.path("in.en");
  o.output_dir = dir.path("out");
  o.source_suffix = "es";
  o.target_suffix = "en";
  o.max_words = 6;
  o.max_ratio = 2;
  o.dev_size = 2;
  o.test_size = 1;
  const PreparationReport report = prepare_corpus(o);
  EXPECT_EQ(report.read, 12);
  EXPECT_EQ(dropped(report, "empty").count, 1);
  EXPECT_EQ(dropped(report, "empty").examples.at(0).first, 2);
  EXPECT_EQ(dropped(report, "identical").count, 1);
  EXPECT_EQ(dropped(report, "too long").count, 1);       // 8 words
  EXPECT_EQ(dropped(report, "length ratio").count, 1);   // 3 words against 1
  EXPECT_EQ(dropped(report, "duplicate").count, 1);      // "uno ||| one" again, line 5
  EXPECT_EQ(dropped(report, "duplicate").examples.at(0), (std::pair<std::int64_t, std::string>{5, "uno ||| one"}));
  EXPECT_EQ(report.kept, 7);
  EXPECT_EQ(report.train + report.dev + report.test, 7);
  EXPECT_EQ(report.dev, 2);
  EXPECT_EQ(report.test, 1);
  EXPECT_EQ(lines_of(dir.path("out/train.es")).size(), 4u);
  EXPECT_EQ(lines_of(dir.path("out/dev.en")).size(), 2u);
  // Every kept pair in exactly one split, sides still line-parallel.
  std::multiset<std::string> pairs;
  for (const char* part : {"train", "dev", "test"}) {
    const auto es = lines_of(dir.path(std::string("out/") + part + ".es"));
    const auto en = lines_of(dir.path(std::string("out/") + part + ".en"));
    ASSERT_EQ(es.size(), en.size()) << part;
    for (std::size_t i = 0; i < es.size(); ++i) pairs.insert(es[i] + "|" + en[i]);
  }
  EXPECT_EQ(pairs, (std::multiset<std::string>{"uno|one", "cinco|five", "seis|six", "siete|seven", "ocho|eight",
                                               "nueve|nine", "diez|ten"}));
  EXPECT_NE(format_preparation_report(report).find("dropped 1 duplicate\n    line 5: uno ||| one"), std::string::npos);
  const auto json = nlohmann::json::parse(preparation_report_json(report));
  EXPECT_EQ(json["dropped"]["duplicate"]["count"], 1);
  EXPECT_EQ(json["dropped"]["duplicate"]["examples"][0]["line"], 5);
  EXPECT_EQ(json["split"]["train"], 4);
}

// 40 pairs in 8 books from a TSV with named columns: no book in two splits, whole books until each
// split has its size, and the same seed gives the same split (another seed another).
TEST(CorpusPreparation, GroupedSplitKeepsEachKeyInOneSplitAndIsSeeded) {
  test::TempDir dir;
  std::string tsv = "book\tes\ten\n";
  for (int i = 0; i < 40; ++i) {
    tsv += "B" + std::to_string(i % 8) + "\tfrase " + std::to_string(i) + "\tsentence " + std::to_string(i) + "\n";
  }
  test::write_text(dir.path("c.tsv"), tsv);
  CorpusPreparation o;
  o.tsv = dir.path("c.tsv");
  o.source_column = "es";
  o.target_column = "en";
  o.key_column = "book";
  o.dev_size = 6;
  o.test_size = 6;
  const auto split_of = [&](std::uint64_t seed, const std::string& out) {
    o.seed = seed;
    o.output_dir = dir.path(out);
    const PreparationReport report = prepare_corpus(o);
    EXPECT_EQ(report.groups, 8);
    EXPECT_EQ(report.dev, 10);  // two books of five: whole books until 6 are reached
    EXPECT_EQ(report.test, 10);
    std::map<std::string, std::string> book_split;  // book -> split
    for (const char* part : {"train", "dev", "test"}) {
      for (const std::string& line : lines_of(dir.path(out + "/" + std::string(part) + ".src"))) {
        const int i = std::stoi(line.substr(6));
        const std::string book = "B" + std::to_string(i % 8);
        const auto [it, fresh] = book_split.try_emplace(book, part);
        EXPECT_EQ(it->second, part) << book << " is in two splits";
      }
    }
    return test::read_text(dir.path(out + "/test.src"));
  };
  const std::string first = split_of(1, "a");
  EXPECT_EQ(split_of(1, "b"), first);
  EXPECT_NE(split_of(2, "c"), first);
}

TEST(CorpusPreparation, TsvColumnsByNumberAndBadInputWritesNothing) {
  test::TempDir dir;
  test::write_text(dir.path("n.tsv"), "x\thola\thello\ny\tadios\tgoodbye\nz\tsi\tyes\n");
  CorpusPreparation o;
  o.tsv = dir.path("n.tsv");
  o.source_column = "2";
  o.target_column = "3";
  o.dev_size = o.test_size = 1;
  o.output_dir = dir.path("ok");
  EXPECT_EQ(prepare_corpus(o).kept, 3);

  o.output_dir = dir.path("bad");
  test::write_text(dir.path("ragged.tsv"), "x\thola\thello\ny\tadios\n");
  o.tsv = dir.path("ragged.tsv");
  EXPECT_THROW_WITH(prepare_corpus(o), DataError, "ragged.tsv:2: 2 columns, where the file's first line has 3");
  o.tsv = dir.path("n.tsv");
  o.source_column = "es";
  o.target_column = "en";
  EXPECT_THROW_WITH(prepare_corpus(o), ConfigError, "no column 'es' in its header line");
  o.tsv.clear();
  o.source_column = o.target_column = "";
  test::write_text(dir.path("a.es"), "uno\ndos\n");
  test::write_text(dir.path("a.en"), "one\n");
  o.source = dir.path("a.es");
  o.target = dir.path("a.en");
  EXPECT_THROW_WITH(prepare_corpus(o), DataError, "not line-parallel", "a.es has 2", "a.en has 1");
  o.target = dir.path("missing.en");
  EXPECT_THROW_WITH(prepare_corpus(o), IoError, "missing.en");
  test::write_text(dir.path("b.es"), "uno\ndos\xff\n");
  test::write_text(dir.path("b.en"), "one\ntwo\n");
  o.source = dir.path("b.es");
  o.target = dir.path("b.en");
  EXPECT_THROW_WITH(prepare_corpus(o), DataError, "b.es:2", "invalid UTF-8");
  test::write_text(dir.path("b.es"), "uno\ndos\n");
  o.dev_size = 1;
  o.test_size = 1;
  EXPECT_THROW_WITH(prepare_corpus(o), ConfigError, "leave no training pairs of the 2 kept");
  EXPECT_FALSE(std::filesystem::exists(dir.path("bad")));

  // Outputs that exist are replaced only when asked; the options are checked first.
  o.output_dir = dir.path("ok");
  o.source = dir.path("a.es");
  o.target = dir.path("a.en");
  EXPECT_THROW_WITH(prepare_corpus(o), IoError, "ok/train.src", "exists");
  o.tsv = dir.path("n.tsv");
  EXPECT_THROW_WITH(prepare_corpus(o), ConfigError, "give --source and --target, or --tsv (not both)");
}

}  // namespace
}  // namespace nmt
