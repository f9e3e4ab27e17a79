#include "nmt/eval/chrf.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "nmt/core/error.h"
#include "nmt/core/version.h"
#include "tests/test_util.h"

namespace nmt {
// Its own namespace: a unity build compiles this file together with others (docs/architecture.md).
namespace chrf_test {
namespace {

using Lines = std::vector<std::string>;
using Streams = std::vector<std::vector<std::string>>;

std::string version_field() { return "version:nmt-" + version(); }

ChrfOptions beta3(bool eps_smoothing) {
  ChrfOptions options;
  options.beta = 3;
  options.eps_smoothing = eps_smoothing;
  return options;
}

// ----------------------------------------------------------------------------------------------
// Values computed by hand.

TEST(Chrf, HandComputedBothSmoothings) {
  // hyp "ab", ref "abc" (character orders 1..6, beta 2, so F = 5PR / (4P + R)):
  //   order 1: hyp {a, b} = 2, ref {a, b, c} = 3, common 2   P = 1, R = 2/3
  //   order 2: hyp {ab} = 1,   ref {ab, bc} = 2,   common 1   P = 1, R = 1/2
  //   order 3: hyp none,       ref {abc} = 1,      common 0
  //   orders 4-6: no n-grams on either side
  // sacreBLEU's default (effective order): average P and R over orders 1-2 only:
  //   P = 1, R = (2/3 + 1/2) / 2 = 7/12, F = 5 * 7/12 / (4 + 7/12) = 35/55 = 63.636...
  // Epsilon smoothing: the mean of the per-order F-scores over all 6 orders:
  //   F1 = 5 * 2/3 / (4 + 2/3) = 10/14, F2 = 5 * 1/2 / (4 + 1/2) = 5/9, F3 = 0 (P = eps, R = 0),
  //   F4..F6 = eps each -> (10/14 + 5/9) / 6 = 21.164...
  const auto stats = chrf_statistics({"ab"}, {{"abc"}});
  ASSERT_EQ(stats.orders.size(), 6u);
  EXPECT_EQ(stats.orders[0].hypothesis, 2);
  EXPECT_EQ(stats.orders[0].reference, 3);
  EXPECT_EQ(stats.orders[0].matches, 2);
  EXPECT_EQ(stats.orders[2].hypothesis, 0);
  EXPECT_EQ(stats.orders[2].reference, 1);
  EXPECT_NEAR(compute_chrf(stats).score, 100.0 * 35 / 55, 1e-9);
  ChrfOptions eps;
  eps.eps_smoothing = true;
  EXPECT_NEAR(corpus_chrf({"ab"}, {{"abc"}}, eps).score, 100.0 * (10.0 / 14 + 5.0 / 9) / 6, 1e-9);
}

TEST(Chrf, HandComputedChrfPlusPlus) {
  // Character order 1 and word order 2: hyp "a cat." ref "a cat".
  //   characters (whitespace removed) "acat." vs "acat": 5 hyp, 4 ref, 4 common   P = 4/5, R = 1
  //   words: "cat." loses its final period: [a, cat, .] vs [a, cat]
  //     word 1-grams: 3 hyp, 2 ref, 2 common                                     P = 2/3, R = 1
  //     word 2-grams: {a cat, cat .} vs {a cat}: 2 hyp, 1 ref, 1 common          P = 1/2, R = 1
  //   P = (4/5 + 2/3 + 1/2) / 3 = 59/90, R = 1, F2 = 5 * 59/90 / (4 * 59/90 + 1) = 295/326 = 90.49...
  ChrfOptions options;
  options.char_order = 1;
  options.word_order = 2;
  const auto score = corpus_chrf({"a cat."}, {{"a cat"}}, options);
  EXPECT_NEAR(score.score, 100.0 * 295 / 326, 1e-9);
  EXPECT_EQ(score.name(), "chrF2++");
  EXPECT_EQ(score.format(), "chrF2++ = 90.49");
  EXPECT_EQ(score.signature(options), "nrefs:1|case:mixed|eff:yes|nc:1|nw:2|space:no|" + version_field());
}

TEST(Chrf, BestReferencePerSentence) {
  // Sentence 1 matches its second reference exactly, sentence 2 its first: both count as 100.
  const auto score = corpus_chrf({"abc def", "xyz"}, {{"abd", "xyz"}, {"abc def", "uvw"}});
  EXPECT_NEAR(score.score, 100.0, 1e-9);
  EXPECT_EQ(score.num_refs, 2);
  // The reference chosen is the best by chrF, not the one with most matches.
  const auto stats = chrf_statistics({"abcd"}, {{"abcdefghij"}, {"abcx"}});
  EXPECT_EQ(stats.orders[0].reference, 4);  // "abcx": F = 47.9 beats "abcdefghij": F = 32.9
}

TEST(Chrf, IdenticalEmptyAndDisjoint) {
  const Lines text = {"Niemand hat die Absicht, eine Mauer zu errichten", "Ünïcödé ßtraße 東京"};
  EXPECT_NEAR(corpus_chrf(text, {text}).score, 100.0, 1e-9);
  EXPECT_EQ(corpus_chrf({"abcdefg"}, {{"hijklmnop"}}).score, 0.0);
  EXPECT_EQ(corpus_chrf({""}, {{"reference"}}).score, 0.0);
  const auto empty = corpus_chrf({}, {{}});
  EXPECT_EQ(empty.score, 0.0);
  EXPECT_EQ(empty.format(), "chrF2 = 0.00");
}

TEST(Chrf, WhitespaceAndLowercaseOptions) {
  // Whitespace is removed by default, so spacing does not matter ...
  EXPECT_NEAR(corpus_chrf({"a b c"}, {{"abc"}}).score, 100.0, 1e-9);
  // ... unless it is kept: "a b c" has 5 characters, "abc" 3; 1-grams share 3 (P = 3/5, R = 1),
  // 2-grams "a ", " b", "b ", " c" vs "ab", "bc" share none, and so on.
  ChrfOptions keep;
  keep.whitespace = true;
  EXPECT_LT(corpus_chrf({"a b c"}, {{"abc"}}, keep).score, 100.0);
  ChrfOptions lower;
  lower.lowercase = true;
  EXPECT_LT(corpus_chrf({"ÉCOLE"}, {{"école"}}).score, 100.0);
  EXPECT_NEAR(corpus_chrf({"ÉCOLE"}, {{"école"}}, lower).score, 100.0, 1e-9);
}

TEST(Chrf, StatisticsAddUp) {
  const Lines hyps = {"The cat sat.", "It rained all day", ""};
  const Streams refs = {{"The cat sat down.", "It was raining all day", "Nothing"}};
  ChrfStatistics sum;
  for (std::size_t i = 0; i < hyps.size(); ++i) sum += chrf_statistics({hyps[i]}, {{refs[0][i]}});
  const auto whole = chrf_statistics(hyps, refs);
  for (std::size_t n = 0; n < whole.orders.size(); ++n) {
    EXPECT_EQ(sum.orders[n].hypothesis, whole.orders[n].hypothesis);
    EXPECT_EQ(sum.orders[n].reference, whole.orders[n].reference);
    EXPECT_EQ(sum.orders[n].matches, whole.orders[n].matches);
  }
  EXPECT_EQ(compute_chrf(sum).score, corpus_chrf(hyps, refs).score);
}

// ----------------------------------------------------------------------------------------------
// sacreBLEU's published values.

TEST(ChrfSacreBleu, ReadmeExample) {
  // mjpost/sacrebleu README.md, "Using SacreBLEU from Python": chrF2 = 59.73, and the CLI's
  // signature chrF2|nrefs:2|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.0.0.
  const Lines hyps = {"The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."};
  const Streams refs = {
      {"The dog bit the man.", "It was not unexpected.", "The man bit him first."},
      {"The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."},
  };
  const auto score = corpus_chrf(hyps, refs);
  EXPECT_EQ(score.format(), "chrF2 = 59.73");
  EXPECT_EQ(score.signature(ChrfOptions{}), "nrefs:2|case:mixed|eff:yes|nc:6|nw:0|space:no|" + version_field());
}

TEST(ChrfSacreBleu, EpsilonSmoothingCases) {
  // mjpost/sacrebleu test/test_chrf.py, test_cases: corpus_chrf(char_order=6, word_order=0,
  // beta=3, eps_smoothing=True), tolerance 1e-4.
  struct Case {
    Lines hyps, refs;
    double expected;
  };
  const std::vector<Case> cases = {
      {{"abcdefg"}, {"hijklmnop"}, 0.0},
      {{"a"}, {"b"}, 0.0},
      {{""}, {"b"}, 0.0},
      {{""}, {"ref"}, 0.0},
      {{""}, {"reference"}, 0.0},
      {{"aa"}, {"ab"}, 8.3333},
      {{"a", "b"}, {"a", "c"}, 8.3333},
      {{"a"}, {"a"}, 16.6667},
      {{"a b c"}, {"a b c"}, 50.0},
      {{"a b c"}, {"abc"}, 50.0},
      {{" risk assessment must be made of those who are qualified and expertise in the sector - these are the "
        "scientists ."},
       {"risk assessment has to be undertaken by those who are qualified and expert in that area - that is the "
        "scientists ."},
       63.361730},
      {{" Die    Beziehung zwischen  Obama und Netanjahu ist nicht gerade  freundlich. "},
       {"Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."},
       64.1302698},
      {{"Niemand hat die Absicht, eine Mauer zu errichten"}, {"Niemand hat die Absicht, eine Mauer zu errichten"}, 100.0},
  };
  for (const auto& c : cases) {
    EXPECT_NEAR(corpus_chrf(c.hyps, {c.refs}, beta3(true)).score, c.expected, 1e-4) << c.hyps[0];
  }
}

TEST(ChrfSacreBleu, EffectiveOrderCases) {
  // test/test_chrf.py, test_cases_effective_order: beta=3, eps_smoothing=False.
  struct Case {
    Lines hyps, refs;
    double expected;
  };
  const std::vector<Case> cases = {
      {{"a"}, {"a"}, 100.0},      {{""}, {"reference"}, 0.0}, {{"a b c"}, {"a b c"}, 100.0},
      {{"a b c"}, {"abc"}, 100.0}, {{""}, {"c"}, 0.0},         {{"a", "b"}, {"a", "c"}, 50.0},
      {{"aa"}, {"ab"}, 25.0},
  };
  for (const auto& c : cases) {
    EXPECT_NEAR(corpus_chrf(c.hyps, {c.refs}, beta3(false)).score, c.expected, 1e-4) << c.hyps[0];
  }
}

TEST(ChrfSacreBleu, KeepWhitespaceCases) {
  // test/test_chrf.py, test_cases_keep_whitespace: beta=3, whitespace kept (remove_whitespace=False).
  auto options = beta3(false);
  options.whitespace = true;
  EXPECT_NEAR(corpus_chrf({"Die Beziehung zwischen Obama und Netanjahu ist nicht gerade freundlich."},
                          {{"Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."}}, options)
                  .score,
              67.3481606, 1e-4);
  EXPECT_NEAR(corpus_chrf({"risk assessment must be made of those who are qualified and expertise in the sector - "
                           "these are the scientists ."},
                          {{"risk assessment has to be undertaken by those who are qualified and expert in that area "
                            "- that is the scientists ."}},
                          options)
                  .score,
              65.2414427, 1e-4);
}

TEST(ChrfSacreBleu, SentenceLevelCases) {
  // test/test_chrf.py, test_sentence_level_chrf: sentence_chrf(eps_smoothing=True), beta 2.
  ChrfOptions eps;
  eps.eps_smoothing = true;
  EXPECT_NEAR(sentence_chrf("Co nás nejvíc trápí, protože lékaři si vybírají, kdo bude žít a kdo zemře.",
                            {"Nejvíce smutní jsme z toho, že musíme rozhodovat o tom, kdo bude žít a kdo zemře."}, eps)
                  .score,
              39.14078509, 1e-4);
  EXPECT_NEAR(sentence_chrf("Nebo prostě nemají vybavení, které by jim pomohlo, uvedli lékaři.",
                            {"A někdy nemáme ani potřebný materiál, abychom jim pomohli, popsali lékaři."}, eps)
                  .score,
              31.22557079, 1e-4);
  EXPECT_NEAR(sentence_chrf("Lapali po dechu, jejich životy skončily dřív, než skutečně začaly.",
                            {"Lapali po dechu a pak jejich život skončil - dřív, než skutečně mohl začít, připomněli."},
                            eps)
                  .score,
              57.15704367, 1e-4);
}

TEST(ChrfSacreBleu, HuggingFaceMetricCardExamples) {
  // huggingface/datasets metrics/chrf/README.md (computed by sacreBLEU's CHRF with its defaults).
  const Lines hyps = {"The relationship between cats and dogs is not exactly friendly.",
                      "a good bookshop is just a genteel black hole that knows how to read."};
  const Streams refs = {{"The relationship between dogs and cats is not exactly friendly.",
                         "A good bookshop is just a genteel Black Hole that knows how to read."}};
  EXPECT_NEAR(corpus_chrf(hyps, refs).score, 84.64214891738334, 1e-9);
  ChrfOptions plus_plus;
  plus_plus.word_order = 2;
  EXPECT_NEAR(corpus_chrf(hyps, refs, plus_plus).score, 82.87263732906315, 1e-9);
  plus_plus.lowercase = true;
  const auto lower = corpus_chrf(hyps, refs, plus_plus);
  EXPECT_NEAR(lower.score, 92.12853119829202, 1e-9);
  EXPECT_EQ(lower.signature(plus_plus), "nrefs:1|case:lc|eff:yes|nc:6|nw:2|space:no|" + version_field());
  EXPECT_NEAR(corpus_chrf({"The relationship between Obama and Netanyahu is not exactly friendly."},
                          {{"The ties between Obama and Netanyahu are not particularly friendly."}})
                  .score,
              61.576379378113785, 1e-9);
}

// ----------------------------------------------------------------------------------------------
// Signatures, options and errors.

TEST(Chrf, SignatureNamesEverySetting) {
  ChrfOptions options;
  options.beta = 3;
  options.eps_smoothing = true;
  options.whitespace = true;
  const auto score = corpus_chrf({"a"}, {{"a"}}, options);
  EXPECT_EQ(score.name(), "chrF3");
  EXPECT_EQ(score.signature(options), "nrefs:1|case:mixed|eff:no|nc:6|nw:0|space:yes|" + version_field());
  const auto variable = corpus_chrf({"a", "b"}, {{"a", ""}, {"a", "b"}});
  EXPECT_EQ(variable.signature(ChrfOptions{}), "nrefs:var|case:mixed|eff:yes|nc:6|nw:0|space:no|" + version_field());
}

TEST(Chrf, RejectsInvalidOptionsAndInput) {
  ChrfOptions options;
  options.char_order = -1;
  EXPECT_THROW_WITH(options.validate(), ConfigError, "character order", "-1");
  options = {};
  options.char_order = 0;
  EXPECT_THROW_WITH(corpus_chrf({"a"}, {{"a"}}, options), ConfigError, "both are 0");
  options = {};
  options.word_order = -2;
  EXPECT_THROW_WITH(options.validate(), ConfigError, "word order", "-2");
  options = {};
  options.beta = -1;
  EXPECT_THROW_WITH(options.validate(), ConfigError, "beta");
  EXPECT_THROW_WITH(compute_chrf(ChrfStatistics{}), ConfigError, "0 orders");

  EXPECT_THROW_WITH(corpus_chrf({"a"}, {}), DataError, "chrF", "no reference stream");
  EXPECT_THROW_WITH(corpus_chrf({"a", "b"}, {{"a"}}), DataError, "reference stream 1 has 1 lines", "hypotheses have 2");
  EXPECT_THROW_WITH(corpus_chrf({"a"}, {{""}}), DataError, "line 1", "every reference is empty");
  EXPECT_THROW_WITH(corpus_chrf({"\xe2\x82"}, {{"a"}}), DataError, "hypothesis line 1", "invalid UTF-8");
}

}  // namespace
}  // namespace chrf_test
}  // namespace nmt
