// Scoring files as nmt-score does: reading (sacreBLEU's rstrip, line counts, empty references),
// options, and the text and JSON reports. The metrics themselves are tested in bleu_test/chrf_test.
#include "nmt/eval/scoring.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "nmt/core/error.h"
#include "nmt/core/version.h"
#include "tests/test_util.h"

namespace nmt {
// Its own namespace: a unity build compiles this file together with others (docs/architecture.md).
namespace scoring_test {
namespace {

// mjpost/sacrebleu README.md, "Using SacreBLEU from Python" (two reference streams).
const char* kReadmeHyps = "The dog bit the man.\nIt wasn't surprising.\nThe man had just bitten him.\n";
const char* kReadmeRef1 = "The dog bit the man.\nIt was not unexpected.\nThe man bit him first.\n";
const char* kReadmeRef2 = "The dog had bit the man.\nNo one was surprised.\nThe man had bitten the dog.\n";

std::string version_field() { return "version:nmt-" + version(); }

struct ReadmeFiles {
  test::TempDir dir;
  std::string hyps = dir.path("hyps.txt"), ref1 = dir.path("ref1.txt"), ref2 = dir.path("ref2.txt");
  ReadmeFiles() {
    test::write_text(hyps, kReadmeHyps);
    test::write_text(ref1, kReadmeRef1);
    test::write_text(ref2, kReadmeRef2);
  }
};

TEST(Scoring, ReadmeExampleAsText) {
  ReadmeFiles files;
  const ScoringOptions options;
  const auto scores = score_corpus(read_scoring_input(files.hyps, {files.ref1, files.ref2}), options);
  EXPECT_EQ(format_scores(scores, options),
            "BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)  "
            "nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|" + version_field() + "\n" +
            "chrF2 = 59.73  nrefs:2|case:mixed|eff:yes|nc:6|nw:0|space:no|" + version_field() + "\n");
}

TEST(Scoring, MetricOrderWidthAndTokenizer) {
  ReadmeFiles files;
  ScoringOptions options;
  options.metrics = {"chrf", "bleu"};
  options.width = 4;
  options.tokenize = BleuTokenizer::none;  // sacreBLEU test_bleu.py: 49.1919566
  const auto text = format_scores(score_corpus(read_scoring_input(files.hyps, {files.ref1, files.ref2}), options),
                                  options);
  EXPECT_EQ(text.rfind("chrF2 = 59.7275  ", 0), 0u) << text;
  EXPECT_NE(text.find("\nBLEU = 49.1920 "), std::string::npos) << text;
  EXPECT_NE(text.find("|tok:none|"), std::string::npos) << text;
}

TEST(Scoring, JsonHasScoresSignaturesAndDetails) {
  ReadmeFiles files;
  ScoringOptions options;
  const auto scores = score_corpus(read_scoring_input(files.hyps, {files.ref1, files.ref2}), options);
  const auto json = nlohmann::json::parse(scores_json(scores, options));
  EXPECT_EQ(json["bleu"]["name"], "BLEU");
  EXPECT_EQ(json["bleu"]["score"], 48.53);
  EXPECT_EQ(json["bleu"]["signature"], "nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|" + version_field());
  EXPECT_EQ(json["bleu"]["verbose_score"], "82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)");
  EXPECT_EQ(json["bleu"]["nrefs"], "2");
  EXPECT_EQ(json["bleu"]["tok"], "13a");
  EXPECT_EQ(json["bleu"]["sys_len"], 17);
  EXPECT_EQ(json["bleu"]["ref_len"], 18);
  EXPECT_EQ(json["bleu"]["counts"].size(), 4u);
  EXPECT_NEAR(json["bleu"]["bp"].get<double>(), 0.943, 5e-4);
  EXPECT_EQ(json["chrf"]["name"], "chrF2");
  EXPECT_EQ(json["chrf"]["score"], 59.73);
  EXPECT_EQ(json["chrf"]["eff"], "yes");
  EXPECT_EQ(json["chrf"]["beta"], 2);
  options.metrics = {"chrf"};
  options.width = 6;
  const auto only_chrf = nlohmann::json::parse(scores_json(score_corpus(read_scoring_input(files.hyps, {files.ref1}),
                                                                        options),
                                                           options));
  EXPECT_FALSE(only_chrf.contains("bleu"));
  EXPECT_EQ(only_chrf["chrf"]["nrefs"], "1");
}

TEST(Scoring, LowercaseAppliesToBothMetrics) {
  test::TempDir dir;
  test::write_text(dir.path("hyps.txt"), "THE DOG BIT THE MAN.\nIT WASN'T SURPRISING.\nTHE MAN HAD JUST BITTEN HIM.\n");
  test::write_text(dir.path("ref1.txt"), kReadmeRef1);
  test::write_text(dir.path("ref2.txt"), kReadmeRef2);
  ScoringOptions options;
  options.lowercase = true;
  const std::vector<std::string> refs = {dir.path("ref1.txt"), dir.path("ref2.txt")};
  const auto scores = score_corpus(read_scoring_input(dir.path("hyps.txt"), refs), options);
  // Lowercasing the references as well changes chrF's counts (The/the), not BLEU's.
  EXPECT_EQ(scores.bleu->format(), "BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)");
  EXPECT_EQ(scores.chrf->format(), "chrF2 = 60.02");
  ReadmeFiles files;
  const auto original = score_corpus(read_scoring_input(files.hyps, refs), options);
  EXPECT_EQ(scores.bleu->score, original.bleu->score);
  EXPECT_EQ(scores.chrf->score, original.chrf->score);
  const auto text = format_scores(scores, options);
  EXPECT_NE(text.find("nrefs:2|case:lc|eff:no"), std::string::npos) << text;
  EXPECT_NE(text.find("nrefs:2|case:lc|eff:yes"), std::string::npos) << text;
}

TEST(Scoring, LinesLoseTrailingWhitespaceAsWithPythonRstrip) {
  test::TempDir dir;
  // Trailing tab, no-break space (U+00A0), ideographic space (U+3000) and CR; leading blanks stay.
  test::write_text(dir.path("hyps.txt"), "a b\t\xC2\xA0\n  c d\xE3\x80\x80\r\n\xC3\xA9 \n");
  test::write_text(dir.path("refs.txt"), "x\n \t \ny\n");
  test::write_text(dir.path("refs2.txt"), "x\nz\ny\n");
  const auto input = read_scoring_input(dir.path("hyps.txt"), {dir.path("refs2.txt"), dir.path("refs.txt")});
  EXPECT_EQ(input.hypotheses, (std::vector<std::string>{"a b", "  c d", "\xC3\xA9"}));
  EXPECT_EQ(input.references[1], (std::vector<std::string>{"x", "", "y"}));  // blank: empty, left out per line
  ScoringOptions options;
  EXPECT_EQ(score_corpus(input, options).bleu->num_refs, -1);  // nrefs:var
}

TEST(Scoring, ReadErrorsNameFilesAndCounts) {
  ReadmeFiles files;
  test::write_text(files.dir.path("short.txt"), "one\ntwo\n");
  EXPECT_THROW_WITH(read_scoring_input(files.hyps, {files.ref1, files.dir.path("short.txt")}), DataError,
                    "line count mismatch", "hyps.txt have 3 lines", "short.txt has 2");
  EXPECT_THROW_WITH(read_scoring_input(files.hyps, {files.dir.path("absent.txt")}), IoError, "absent.txt");
  EXPECT_THROW_WITH(read_scoring_input(files.hyps, {}), ConfigError, "no reference");
  EXPECT_THROW_WITH(read_scoring_input("-", {"-"}), ConfigError, "standard input");
  test::write_text(files.dir.path("hole1.txt"), "a\n\nc\n");
  test::write_text(files.dir.path("hole2.txt"), "a\n  \nc\n");
  EXPECT_THROW_WITH(read_scoring_input(files.hyps, {files.dir.path("hole1.txt")}), DataError, "hole1.txt:2: empty reference");
  EXPECT_THROW_WITH(read_scoring_input(files.hyps, {files.dir.path("hole1.txt"), files.dir.path("hole2.txt")}), DataError,
                    "line 2: every reference is empty", "hole1.txt", "hole2.txt");
  test::write_text(files.dir.path("bad.txt"), "a\nb\xff\nc\n");
  EXPECT_THROW_WITH(read_scoring_input(files.hyps, {files.dir.path("bad.txt")}), DataError, "bad.txt:2: invalid UTF-8");
}

TEST(Scoring, EmptyFilesScoreZero) {
  test::TempDir dir;
  test::write_text(dir.path("empty.txt"), "");
  const ScoringOptions options;
  const auto scores = score_corpus(read_scoring_input(dir.path("empty.txt"), {dir.path("empty.txt")}), options);
  EXPECT_EQ(scores.bleu->score, 0.0);
  EXPECT_EQ(scores.chrf->score, 0.0);
}

TEST(Scoring, OptionsAreValidated) {
  EXPECT_EQ(split_metric_list(" bleu, chrf ,"), (std::vector<std::string>{"bleu", "chrf"}));
  ScoringOptions options;
  options.metrics = {"ter"};
  EXPECT_THROW_WITH(options.validate(), ConfigError, "metrics: unknown metric 'ter'");
  options.metrics = {"bleu", "bleu"};
  EXPECT_THROW_WITH(options.validate(), ConfigError, "'bleu' is listed twice");
  options.metrics = {};
  EXPECT_THROW_WITH(options.validate(), ConfigError, "metrics: none given");
  options = {};
  options.width = -1;
  EXPECT_THROW_WITH(options.validate(), ConfigError, "width", "-1");
}

}  // namespace
}  // namespace scoring_test
}  // namespace nmt
