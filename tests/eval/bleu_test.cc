#include "nmt/eval/bleu.h"
#include "nmt/eval/metric_helpers.h"
#include "nmt/eval/tokenizer_13a.h"
#include "nmt/eval/unicode_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "nmt/core/error.h"
#include "nmt/core/version.h"
#include "tests/test_util.h"

namespace nmt {
namespace {

using Lines = std::vector<std::string>;
using Streams = std::vector<std::vector<std::string>>;

// sacreBLEU's README example (mjpost/sacrebleu, README.md, "Using SacreBLEU from Python"), also
// test/test_bleu.py's `_hyps` / `_refs`: two reference streams.
const Lines kReadmeHyps = {"The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."};
const Streams kReadmeRefs = {
    {"The dog bit the man.", "It was not unexpected.", "The man bit him first."},
    {"The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."},
};

std::string version_field() { return "version:nmt-" + version(); }

BleuOptions with_smooth(const std::string& method, std::optional<double> value = std::nullopt) {
  BleuOptions options;
  options.smooth = parse_enum<BleuSmoothing>(method);
  options.smooth_value = value;
  return options;
}

// sacreBLEU's compat.raw_corpus_bleu: no tokenization, floor smoothing, effective order.
BleuOptions raw_options(std::optional<double> floor = 0.01) {
  BleuOptions options;
  options.tokenize = BleuTokenizer::none;
  options.smooth = BleuSmoothing::floor;
  options.smooth_value = floor;
  options.effective_order = true;
  return options;
}

BleuStatistics make_statistics(std::vector<std::int64_t> matches, std::vector<std::int64_t> totals,
                               std::int64_t hypothesis_length, std::int64_t reference_length) {
  BleuStatistics stats;
  stats.matches = std::move(matches);
  stats.totals = std::move(totals);
  stats.hypothesis_length = hypothesis_length;
  stats.reference_length = reference_length;
  stats.num_refs = 1;
  return stats;
}

// ----------------------------------------------------------------------------------------------
// The 13a tokenizer. Expected strings follow the rules of sacreBLEU's tokenizer_13a.py and
// tokenizer_re.py (mjpost/sacrebleu); each was also produced by those regular expressions.

TEST(Bleu13aTokenizer, SplitsOffPunctuationAndSymbols) {
  EXPECT_EQ(tokenize_13a("Hello, world!"), "Hello , world !");
  EXPECT_EQ(tokenize_13a("(see [1]; {x}|y~z) @home #tag 50% a+b=c a/b a\\b"),
            "( see [ 1 ] ; { x } | y ~ z ) @ home # tag 50 % a + b = c a / b a \\ b");
  // Apostrophes are not in the symbol class; quotes are.
  EXPECT_EQ(tokenize_13a("don't can't o'clock"), "don't can't o'clock");
  EXPECT_EQ(tokenize_13a("He said \"no\" and 'yes'."), "He said \" no \" and 'yes' .");
  EXPECT_EQ(tokenize_13a("Café, résumé."), "Café , résumé .");
}

TEST(Bleu13aTokenizer, KeepsPeriodsAndCommasInsideNumbers) {
  // A period or comma stays attached only when a digit is on both sides.
  EXPECT_EQ(tokenize_13a("It costs $1,000.50, not 2.5."), "It costs $ 1,000.50 , not 2.5 .");
  EXPECT_EQ(tokenize_13a("1.2.3 1,2,3 a.b.c"), "1.2.3 1,2,3 a . b . c");
  EXPECT_EQ(tokenize_13a("U.S.A. e.g., 3.14 and .5 and 5. and 5,a"),
            "U . S . A . e . g . , 3.14 and . 5 and 5 . and 5 , a");
  EXPECT_EQ(tokenize_13a("Mr. Smith paid 3,50 € – i.e. 4.- EUR..."),
            "Mr . Smith paid 3,50 € – i . e . 4 . - EUR . . .");
}

TEST(Bleu13aTokenizer, SplitsDashesOnlyAfterDigits) {
  EXPECT_EQ(tokenize_13a("well-known 1990-1995 A-1 -5 x - y"), "well-known 1990 - 1995 A-1 -5 x - y");
}

TEST(Bleu13aTokenizer, DecodesEntitiesInSacreBleuOrder) {
  EXPECT_EQ(tokenize_13a("Tom &amp; Jerry &quot;cartoon&quot; &lt;b&gt;"), "Tom & Jerry \" cartoon \" < b >");
  // &quot; is decoded before &amp;, so "&amp;quot;" becomes "&quot;" (then split as symbols);
  // &lt; comes after &amp;, so "&amp;lt;" becomes "<".
  EXPECT_EQ(tokenize_13a("&amp;quot; &amp;lt;"), "& quot ; <");
}

TEST(Bleu13aTokenizer, HandlesSkippedMarkersNewlinesAndWhitespace) {
  EXPECT_EQ(tokenize_13a("a <skipped> b"), "a b");
  EXPECT_EQ(tokenize_13a("hyphen-\nated line\nbreak"), "hyphenated line break");
  EXPECT_EQ(tokenize_13a("a\u00a0b\u3000c\td"), "a b c d");  // Python's str.split() whitespace
  EXPECT_EQ(tokenize_13a(""), "");
  EXPECT_EQ(tokenize_13a("   "), "");
}

TEST(BleuPythonText, LowercasesLikePython) {
  EXPECT_EQ(lowercase_unicode("The CAT"), "the cat");
  EXPECT_EQ(lowercase_unicode("ÀÉÎÕÜ ÇA ŁÓDŹ ДЖЯ"), "àéîõü ça łódź джя");
  EXPECT_EQ(lowercase_unicode("İ"), "i\u0307");  // one capital, two code points (Python's full mapping)
  // Greek capital sigma: final form after a cased letter at the end of a word.
  EXPECT_EQ(lowercase_unicode("ΟΔΟΣ ΣΑΣ Σ"), "οδος σας σ");
  EXPECT_EQ(lowercase_unicode("ΑΣ."), "ας.");
}

TEST(BleuPythonText, SplitsAtUnicodeWhitespace) {
  const auto pieces = split_whitespace(" a\u2009b\x1c" "c\u0085d  \u00e9 ");
  ASSERT_EQ(pieces.size(), 5u);
  EXPECT_EQ(pieces[0], "a");
  EXPECT_EQ(pieces[3], "d");
  EXPECT_EQ(pieces[4], "\u00e9");
  EXPECT_TRUE(split_whitespace(" \t\u3000").empty());
}

TEST(BleuPythonText, FormatsNumbersAsPython) {
  // Python's f"{x:.2f}" rounds the exact binary value, ties to even; so does printf.
  EXPECT_EQ(detail::fixed(0.125, 2), "0.12");
  EXPECT_EQ(detail::fixed(0.375, 2), "0.38");
  EXPECT_EQ(detail::fixed(2.675, 2), "2.67");  // 2.67499999...
  EXPECT_EQ(detail::fixed(99.995, 2), "100.00");
  EXPECT_EQ(detail::fixed(0.5, 0), "0");
  EXPECT_EQ(detail::fixed(1.5, 0), "2");
}

// ----------------------------------------------------------------------------------------------
// Values computed by hand.

TEST(Bleu, HandComputedSingleReference) {
  // hyp: the cat sat on the mat   ref: the cat is on the mat   (6 tokens each, BP = 1)
  //   1-grams: the x2, cat, on, mat match            5/6
  //   2-grams: "the cat", "on the", "the mat"        3/5
  //   3-grams: "on the mat"                          1/4
  //   4-grams: none                                  0/3  -> exp smoothing: 1 / (2 * 3)
  // BLEU = 100 * (5/6 * 3/5 * 1/4 * 1/6)^(1/4) = 100 * (1/48)^(1/4) = 37.9918...
  const Lines hyp = {"the cat sat on the mat"};
  const Streams ref = {{"the cat is on the mat"}};
  const auto score = corpus_bleu(hyp, ref);
  EXPECT_EQ(score.matches, (std::vector<std::int64_t>{5, 3, 1, 0}));
  EXPECT_EQ(score.totals, (std::vector<std::int64_t>{6, 5, 4, 3}));
  EXPECT_NEAR(score.precisions[0], 100.0 * 5 / 6, 1e-9);
  EXPECT_NEAR(score.precisions[3], 100.0 / 6, 1e-9);
  EXPECT_DOUBLE_EQ(score.brevity_penalty, 1.0);
  EXPECT_NEAR(score.score, 100 * std::pow(1.0 / 48, 0.25), 1e-9);
  EXPECT_EQ(score.format(), "BLEU = 37.99 83.3/60.0/25.0/16.7 (BP = 1.000 ratio = 1.000 hyp_len = 6 ref_len = 6)");

  // The other smoothing methods on the same counts:
  //   none:       the 4-gram precision is 0                          -> 0
  //   floor 0.1:  p4 = 0.1/3  -> (5/6 * 3/5 * 1/4 * 0.1/3)^(1/4) = (1/240)^(1/4) = 25.406...
  //   add-k 1:    p2..p4 = 4/6, 2/5, 1/4 -> (5/6 * 2/3 * 2/5 * 1/4)^(1/4) = (1/18)^(1/4) = 48.549...
  EXPECT_EQ(corpus_bleu(hyp, ref, with_smooth("none")).score, 0.0);
  EXPECT_NEAR(corpus_bleu(hyp, ref, with_smooth("floor")).score, 100 * std::pow(1.0 / 240, 0.25), 1e-9);
  EXPECT_NEAR(corpus_bleu(hyp, ref, with_smooth("add-k")).score, 100 * std::pow(1.0 / 18, 0.25), 1e-9);
  // A floor of 0.3 instead: p4 = 0.3/3 = 0.1 -> (5/6 * 3/5 * 1/4 * 1/10)^(1/4) = (1/80)^(1/4)
  EXPECT_NEAR(corpus_bleu(hyp, ref, with_smooth("floor", 0.3)).score, 100 * std::pow(1.0 / 80, 0.25), 1e-9);
}

TEST(Bleu, HandComputedBrevityPenaltyAndEffectiveOrder) {
  // hyp: the cat sat (3 tokens)   ref: the cat sat on the mat (6 tokens)
  //   precisions 3/3, 2/2, 1/1 and no 4-gram at all: without effective order the 4-gram
  //   precision stays 0 and BLEU is 0; with it, BLEU = BP * 100 = exp(1 - 6/3) * 100 = 36.79.
  const Lines hyp = {"the cat sat"};
  const Streams ref = {{"the cat sat on the mat"}};
  const auto plain = corpus_bleu(hyp, ref);
  EXPECT_EQ(plain.score, 0.0);
  EXPECT_NEAR(plain.brevity_penalty, std::exp(-1.0), 1e-12);
  BleuOptions effective;
  effective.effective_order = true;
  const auto score = corpus_bleu(hyp, ref, effective);
  EXPECT_NEAR(score.score, 100 * std::exp(-1.0), 1e-9);
  EXPECT_EQ(score.format(), "BLEU = 36.79 100.0/100.0/100.0/0.0 (BP = 0.368 ratio = 0.500 hyp_len = 3 ref_len = 6)");
}

TEST(Bleu, HandComputedMultipleReferences) {
  // hyp: a a a a (4 tokens)   refs: "a b c" (3) and "a a x y z" (5)
  //   clipping uses the largest count over the references: "a" x2 (ref 2), "a a" x1 (ref 2)
  //   1-grams 2/4, 2-grams 1/3, 3-grams 0/2 -> 100/(2*2) = 25%, 4-grams 0/1 -> 100/(4*1) = 25%
  //   lengths 3 and 5 are equally close to 4: the shorter one counts, so BP = 1
  //   BLEU = 100 * (1/2 * 1/3 * 1/4 * 1/4)^(1/4) = 100 * (1/96)^(1/4) = 31.947...
  const auto score = corpus_bleu({"a a a a"}, {{"a b c"}, {"a a x y z"}});
  EXPECT_EQ(score.matches, (std::vector<std::int64_t>{2, 1, 0, 0}));
  EXPECT_EQ(score.reference_length, 3);
  EXPECT_DOUBLE_EQ(score.brevity_penalty, 1.0);
  EXPECT_NEAR(score.score, 100 * std::pow(1.0 / 96, 0.25), 1e-9);
  EXPECT_EQ(score.num_refs, 2);
}

TEST(Bleu, IdenticalTextScores100AndDisjointTextScores0) {
  const Lines text = {"The quick brown fox jumps over the lazy dog.", "It was 3.5 times faster, really!"};
  const auto same = corpus_bleu(text, {text});
  EXPECT_NEAR(same.score, 100.0, 1e-9);
  EXPECT_EQ(same.format(), "BLEU = 100.00 100.0/100.0/100.0/100.0 (BP = 1.000 ratio = 1.000 hyp_len = 18 ref_len = 18)");
  for (const char* method : {"exp", "none", "floor", "add-k"}) {
    EXPECT_EQ(corpus_bleu({"hello there"}, {{"general kenobi"}}, with_smooth(method)).score, 0.0) << method;
  }
}

TEST(Bleu, LowercaseOption) {
  const Lines hyp = {"The Cat Sat On The Mat", "ÉCOLE ΟΔΟΣ"};
  const Streams ref = {{"the cat sat on the mat", "école οδος"}};
  EXPECT_EQ(corpus_bleu(hyp, ref).score, 0.0);
  BleuOptions lower;
  lower.lowercase = true;
  EXPECT_NEAR(corpus_bleu(hyp, ref, lower).score, 100.0, 1e-9);
}

TEST(Bleu, EmptyHypothesesAndEmptyCorpus) {
  // sacreBLEU test_bleu.py: empty hypotheses are scored, not dropped (score 0, BP 0).
  const auto empty_lines = corpus_bleu({"", "", ""}, kReadmeRefs);
  EXPECT_EQ(empty_lines.score, 0.0);
  EXPECT_EQ(empty_lines.hypothesis_length, 0);
  EXPECT_EQ(empty_lines.brevity_penalty, 0.0);
  // No sentences at all: all-zero statistics, score 0.
  const auto empty = corpus_bleu({}, {{}, {}});
  EXPECT_EQ(empty.score, 0.0);
  EXPECT_EQ(empty.hypothesis_length, 0);
  EXPECT_EQ(empty.reference_length, 0);
  EXPECT_EQ(empty.num_refs, 2);
  EXPECT_EQ(empty.format(), "BLEU = 0.00 0.0/0.0/0.0/0.0 (BP = 1.000 ratio = 0.000 hyp_len = 0 ref_len = 0)");
}

TEST(Bleu, StatisticsAddUp) {
  const BleuOptions options;
  BleuStatistics sum;
  for (std::size_t i = 0; i < kReadmeHyps.size(); ++i) {
    sum += bleu_statistics({kReadmeHyps[i]}, {{kReadmeRefs[0][i]}, {kReadmeRefs[1][i]}}, options);
  }
  const auto whole = bleu_statistics(kReadmeHyps, kReadmeRefs, options);
  EXPECT_EQ(sum.matches, whole.matches);
  EXPECT_EQ(sum.totals, whole.totals);
  EXPECT_EQ(sum.reference_length, whole.reference_length);
  EXPECT_EQ(compute_bleu(sum).score, corpus_bleu(kReadmeHyps, kReadmeRefs).score);
}

// ----------------------------------------------------------------------------------------------
// sacreBLEU's published values.

TEST(BleuSacreBleu, ReadmeExample) {
  // mjpost/sacrebleu README.md: BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944
  // hyp_len = 17 ref_len = 18), signature nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.0.0
  const auto score = corpus_bleu(kReadmeHyps, kReadmeRefs);
  EXPECT_EQ(score.format(), "BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)");
  EXPECT_EQ(score.signature(BleuOptions{}), "nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|" + version_field());
}

TEST(BleuSacreBleu, ReadmeVariableNumberOfReferences) {
  // README.md, "Variable Number of References": an empty reference is dropped, nrefs becomes var.
  Streams refs = kReadmeRefs;
  refs[0][0] = "";
  const auto score = corpus_bleu(kReadmeHyps, refs);
  EXPECT_EQ(score.format(), "BLEU = 29.44 82.4/42.9/27.3/12.5 (BP = 0.889 ratio = 0.895 hyp_len = 17 ref_len = 19)");
  EXPECT_EQ(score.signature(BleuOptions{}), "nrefs:var|case:mixed|eff:no|tok:13a|smooth:exp|" + version_field());
}

TEST(BleuSacreBleu, CorpusBleuCases) {
  // mjpost/sacrebleu test/test_bleu.py, test_corpus_bleu_cases (tolerance 1e-8 there).
  EXPECT_NEAR(corpus_bleu(kReadmeHyps, kReadmeRefs).score, 48.530827, 1e-6);
  EXPECT_NEAR(corpus_bleu({"", "", ""}, kReadmeRefs).score, 0.0, 1e-8);
  BleuOptions none;
  none.tokenize = BleuTokenizer::none;
  EXPECT_NEAR(corpus_bleu(kReadmeHyps, kReadmeRefs, none).score, 49.1919566, 1e-6);
  EXPECT_NEAR(corpus_bleu(kReadmeHyps, kReadmeRefs, with_smooth("none")).score, 48.530827, 1e-6);
}

TEST(BleuSacreBleu, MaxNgramOrder) {
  // test/test_bleu.py, test_bleu_max_order: f"{score:.2f}" for orders 1..6.
  const std::vector<std::string> expected = {"77.65", "60.50", "53.93", "48.53", "46.14", "43.28"};
  for (int order = 1; order <= 6; ++order) {
    BleuOptions options;
    options.max_ngram_order = order;
    const auto score = corpus_bleu(kReadmeHyps, kReadmeRefs, options);
    EXPECT_EQ(detail::fixed(score.score, 2), expected[static_cast<std::size_t>(order - 1)]) << order;
    EXPECT_EQ(score.precisions.size(), static_cast<std::size_t>(order));
  }
}

TEST(BleuSacreBleu, RawCorpusBleu) {
  // test/test_bleu.py, test_raw_bleu_cases and test_case_effective_order, through
  // compat.raw_corpus_bleu (tokenize none, floor 0.01, effective order); expected values / 100.
  EXPECT_NEAR(corpus_bleu({"this is a test", "another test"}, {{"ref1", "ref2"}}, raw_options()).score, 0.0, 1e-6);
  EXPECT_NEAR(corpus_bleu({"this is a test"}, {{"this is a test"}}, raw_options()).score, 100.0, 1e-6);
  EXPECT_NEAR(corpus_bleu({"this is a fest"}, {{"this is a test"}}, raw_options()).score, 22.3606797749979, 1e-6);
  EXPECT_NEAR(corpus_bleu({"test"}, {{"a test"}}, raw_options()).score, 36.78794411714425, 1e-6);
  EXPECT_NEAR(corpus_bleu({"a test"}, {{"a test"}}, raw_options()).score, 100.0, 1e-6);
  EXPECT_NEAR(corpus_bleu({"a little test"}, {{"a test"}}, raw_options()).score, 3.218297948685433, 1e-6);
}

TEST(BleuSacreBleu, StatisticsAndOffsets) {
  // test/test_bleu.py, test_case_statistics and test_case_offset.
  const Lines hyp = {"am I am a character sequence"};
  const Streams ref = {{"I am a symbol string sequence a a"}};
  const auto score = corpus_bleu(hyp, ref, raw_options());
  EXPECT_EQ(score.matches, (std::vector<std::int64_t>{4, 2, 1, 0}));
  EXPECT_EQ(score.totals, (std::vector<std::int64_t>{6, 5, 4, 3}));
  EXPECT_NEAR(corpus_bleu(hyp, ref, raw_options(0.0)).score, 0.0, 1e-6);
  EXPECT_NEAR(corpus_bleu(hyp, ref, raw_options(std::nullopt)).score, 15.55722182, 1e-6);  // floor's default 0.1
}

TEST(BleuSacreBleu, ScoringFromStatistics) {
  // test/test_bleu.py, test_case_scoring: compute_bleu([9,7,5,3], [10,8,6,4], 11, 11) with
  // smooth_method 'none' = 0.8375922397.
  const auto score = compute_bleu(make_statistics({9, 7, 5, 3}, {10, 8, 6, 4}, 11, 11), with_smooth("none"));
  EXPECT_NEAR(score.score, 83.75922397, 1e-6);
  // test_case_degenerate_stats: floor smoothing with these offsets gives exactly 0.
  struct Case {
    std::vector<std::int64_t> matches, totals;
    std::int64_t hypothesis_length, reference_length;
    double offset;
  };
  const std::vector<Case> cases = {
      {{0, 0, 0, 0}, {4, 4, 2, 1}, 0, 1, 0.0},   {{0, 0, 0, 0}, {10, 11, 12, 0}, 14, 10, 0.0},
      {{0, 0, 0, 0}, {0, 0, 0, 0}, 0, 0, 0.0},   {{6, 5, 4, 0}, {6, 5, 4, 3}, 6, 6, 0.0},
      {{0, 0, 0, 0}, {0, 0, 0, 0}, 0, 0, 0.1},   {{0, 0, 0, 0}, {0, 0, 0, 0}, 1, 5, 0.01},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(compute_bleu(make_statistics(c.matches, c.totals, c.hypothesis_length, c.reference_length),
                           with_smooth("floor", c.offset))
                  .score,
              0.0);
  }
}

TEST(BleuSacreBleu, SentenceBleuSmoothingVariants) {
  // mjpost/sacrebleu test/test_sentence_bleu.py (example from issue #98), effective order on,
  // tolerance 1e-3 there.
  const std::string ref = "producţia de zahăr brut se exprimă în zahăr alb;";
  const std::string sys = "Producția de zahăr primă va fi exprimată în ceea ce privește zahărul alb;";
  struct Case {
    const char* smooth;
    std::optional<double> value;
    const char* tokenize;
    double expected;
  };
  const std::vector<Case> cases = {
      {"exp", std::nullopt, "13a", 8.493},     {"none", std::nullopt, "13a", 0.0},
      {"floor", std::nullopt, "13a", 4.51688}, {"floor", 0.1, "13a", 4.51688},
      {"floor", 0.5, "13a", 10.10},            {"add-k", std::nullopt, "13a", 14.882},
      {"add-k", 1.0, "13a", 14.882},           {"add-k", 2.0, "13a", 21.389},
      {"exp", std::nullopt, "none", 7.347},
  };
  for (const auto& c : cases) {
    auto options = with_smooth(c.smooth, c.value);
    options.tokenize = parse_enum<BleuTokenizer>(c.tokenize);
    options.effective_order = true;
    EXPECT_NEAR(sentence_bleu(sys, {ref}, options).score, c.expected, 1e-3) << c.smooth << " " << c.tokenize;
  }
  // test_cases_zero_bleu (issue #141): no match at all gives 0 whatever the smoothing.
  for (const char* method : {"exp", "none", "floor", "add-k"}) {
    auto options = with_smooth(method);
    options.effective_order = true;
    EXPECT_EQ(sentence_bleu("this is a cat", {"okay thanks"}, options).score, 0.0) << method;
  }
}

TEST(BleuSacreBleu, HuggingFaceMetricCardExample) {
  // huggingface/datasets metrics/sacrebleu/README.md (computed by sacreBLEU): score
  // 39.76353643835252, counts [6,4,2,1], totals [10,8,6,4], bp 1.0, sys_len 10, ref_len 7.
  const auto score = corpus_bleu({"hello there general kenobi", "on our way to ankh morpork"},
                                 {{"hello there general kenobi", "goodbye ankh morpork"}, {"hello there !", "ankh morpork"}});
  EXPECT_NEAR(score.score, 39.76353643835252, 1e-9);
  EXPECT_EQ(score.matches, (std::vector<std::int64_t>{6, 4, 2, 1}));
  EXPECT_EQ(score.totals, (std::vector<std::int64_t>{10, 8, 6, 4}));
  EXPECT_EQ(score.hypothesis_length, 10);
  EXPECT_EQ(score.reference_length, 7);
  EXPECT_DOUBLE_EQ(score.brevity_penalty, 1.0);
}

TEST(BleuSacreBleu, ControlCharacterInReference) {
  // mjpost/sacrebleu test.sh, "Control character tests": a "\r" inside the reference is whitespace.
  const Lines hyp = {"Hello! How are you doing today?"};
  EXPECT_EQ(corpus_bleu(hyp, {{"Hello! How are you \r doing today?"}}).score,
            corpus_bleu(hyp, {{"Hello! How are you doing today?"}}).score);
}

// ----------------------------------------------------------------------------------------------
// Signatures, options and errors.

TEST(Bleu, SignatureNamesEverySetting) {
  const auto score = corpus_bleu({"a b c d"}, {{"a b c d"}});
  BleuOptions options;
  options.lowercase = true;
  options.smooth = BleuSmoothing::floor;
  EXPECT_EQ(score.signature(options), "nrefs:1|case:lc|eff:no|tok:13a|smooth:floor[0.10]|" + version_field());
  options.smooth = BleuSmoothing::add_k;
  options.tokenize = BleuTokenizer::none;
  options.effective_order = true;
  EXPECT_EQ(score.signature(options), "nrefs:1|case:lc|eff:yes|tok:none|smooth:add-k[1.00]|" + version_field());
  options.smooth_value = 2;
  EXPECT_EQ(score.signature(options), "nrefs:1|case:lc|eff:yes|tok:none|smooth:add-k[2.00]|" + version_field());
}

TEST(Bleu, RejectsInvalidOptions) {
  // Names are parsed into the enums: an unknown one is a ConfigError naming it.
  EXPECT_THROW_WITH(parse_enum<BleuTokenizer>("intl"), ConfigError, "tokenizer", "intl");
  EXPECT_THROW_WITH(parse_enum<BleuSmoothing>("laplace"), ConfigError, "smoothing", "laplace");
  for (const char* name : {"13a", "none"}) EXPECT_EQ(name_of(parse_enum<BleuTokenizer>(name)), name);
  for (const char* name : {"exp", "none", "floor", "add-k"}) EXPECT_EQ(name_of(parse_enum<BleuSmoothing>(name)), name);
  BleuOptions options;
  options.smooth_value = -1;
  EXPECT_THROW_WITH(options.validate(), ConfigError, "smooth value");
  options = {};
  options.max_ngram_order = 0;
  EXPECT_THROW_WITH(options.validate(), ConfigError, "max n-gram order", "0");
  EXPECT_THROW_WITH(compute_bleu(make_statistics({1, 2}, {2, 2}, 2, 2)), ConfigError, "2 match", "order is 4");
}

TEST(Bleu, RejectsMalformedInput) {
  EXPECT_THROW_WITH(corpus_bleu({"a", "b"}, {}), DataError, "no reference stream");
  EXPECT_THROW_WITH(corpus_bleu({"a", "b", "c"}, {{"a", "b", "c"}, {"a", "b"}}), DataError,
                    "reference stream 2 has 2 lines", "hypotheses have 3");
  EXPECT_THROW_WITH(corpus_bleu({"a", "b"}, {{"a", ""}, {"a", ""}}), DataError, "line 2", "every reference is empty");
  EXPECT_THROW_WITH(corpus_bleu({"a", "b\xff"}, {{"a", "b"}}), DataError, "hypothesis line 2", "invalid UTF-8");
  EXPECT_THROW_WITH(corpus_bleu({"a"}, {{"a"}, {"\xc3"}}), DataError, "reference stream 2 line 1", "invalid UTF-8");
}

}  // namespace
}  // namespace nmt
