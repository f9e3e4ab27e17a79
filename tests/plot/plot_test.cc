#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "nmt/core/error.h"
#include "nmt/plot/attention_comparison.h"
#include "nmt/plot/attention_heatmap.h"
#include "nmt/plot/attention_matrix.h"
#include "nmt/plot/figure.h"
#include "nmt/plot/length_plot.h"
#include "nmt/plot/line_chart.h"
#include "nmt/plot/training_curves.h"
#include "tests/plot/svg_cells.h"
#include "tests/test_util.h"

namespace nmt::plot {
namespace {
namespace fs = std::filesystem;

// Source "▁Y ▁dij o : </s>" (4 words: Y, dijo, :, </s> -- ":" continues "dijo"), target
// "▁And ▁sa id </s>" (3 words), weights as a model would give them (rows sum to 1).
const std::string kLine =
    R"({"index":3,"source":["▁Y","▁dij","o",":","</s>"],"target":["▁And","▁sa","id","</s>"],)"
    R"("attention":[[0.7,0.1,0.1,0.05,0.05],[0.0,0.6,0.3,0.1,0.0],[0.1,0.2,0.5,0.2,0.0],[0,0,0,0.2,0.8]]})";

// Width and height of a PNG from its IHDR chunk (big-endian, bytes 16-23).
std::pair<std::uint32_t, std::uint32_t> png_size(const std::string& png) {
  const auto be = [&](std::size_t at) {
    return (static_cast<std::uint32_t>(static_cast<unsigned char>(png[at])) << 24) |
           (static_cast<std::uint32_t>(static_cast<unsigned char>(png[at + 1])) << 16) |
           (static_cast<std::uint32_t>(static_cast<unsigned char>(png[at + 2])) << 8) |
           static_cast<std::uint32_t>(static_cast<unsigned char>(png[at + 3]));
  };
  return {be(16), be(20)};
}

const std::string kPngSignature("\x89PNG\r\n\x1a\n", 8);

TEST(AttentionMatrix, ParsesALineAndItsHardAlignment) {
  const AttentionMatrix m = parse_attention_line(kLine, "a.json line 4", 4);
  EXPECT_EQ(m.index, 3);
  EXPECT_EQ(m.line, 4);
  EXPECT_EQ(m.source.size(), 5u);
  EXPECT_EQ(m.target.size(), 4u);
  EXPECT_EQ(m.hard_alignment(), (std::vector<std::size_t>{0, 1, 2, 4}));
  EXPECT_FALSE(m.words);
}

TEST(AttentionMatrix, RejectsWhatIsNotAttentionOutputNamingTheLine) {
  const auto bad = [](const std::string& line) { return parse_attention_line(line, "a.json line 7"); };
  EXPECT_THROW_WITH(bad("hello"), DataError, "a.json line 7", "not a JSON object");
  EXPECT_THROW_WITH(bad("[1,2]"), DataError, "a.json line 7", "not a JSON object");
  EXPECT_THROW_WITH(bad(R"({"index":1,"source":[],"target":[]})"), DataError, "no \"attention\"");
  EXPECT_THROW_WITH(bad(R"({"source":["a"],"target":[],"attention":[]})"), DataError, "index");
  EXPECT_THROW_WITH(bad(R"({"index":1,"source":["a",2],"target":[],"attention":[]})"), DataError, "not text");
  EXPECT_THROW_WITH(bad(R"({"index":1,"source":["a","b"],"target":["x"],"attention":[]})"), DataError,
                    "0 attention rows for 1 target tokens");
  EXPECT_THROW_WITH(bad(R"({"index":1,"source":["a","b"],"target":["x"],"attention":[[1.0]]})"), DataError,
                    "row 1", "1 weights for 2 source tokens");
  EXPECT_THROW_WITH(bad(R"({"index":1,"source":["a","b"],"target":["x"],"attention":[[1.5,-0.5]]})"), DataError,
                    "outside [0, 1]");
  EXPECT_THROW_WITH(bad(R"({"index":1,"source":["a","b"],"target":["x"],"attention":[[0.5,0.2]]})"), DataError,
                    "sum to 0.7");
  // An empty translation is a valid line without rows.
  EXPECT_TRUE(bad(R"({"index":2,"source":[],"target":[],"attention":[]})").weights.empty());
}

TEST(AttentionMatrix, WordMergeSumsSourcePiecesAndAveragesTargetPieces) {
  const AttentionMatrix words = merge_words(parse_attention_line(kLine, "x"));
  EXPECT_TRUE(words.words);
  EXPECT_EQ(words.source, (std::vector<std::string>{"Y", "dijo:", "</s>"}));
  EXPECT_EQ(words.target, (std::vector<std::string>{"And", "said", "</s>"}));
  ASSERT_EQ(words.weights.size(), 3u);
  // "said" = mean of the rows of "▁sa" and "id"; its "dijo:" column sums "▁dij", "o" and ":".
  EXPECT_NEAR(words.weights[1][0], (0.0 + 0.1) / 2, 1e-12);
  EXPECT_NEAR(words.weights[1][1], ((0.6 + 0.3 + 0.1) + (0.2 + 0.5 + 0.2)) / 2, 1e-12);
  EXPECT_NEAR(words.weights[0][1], 0.1 + 0.1 + 0.05, 1e-12);
  for (const auto& row : words.weights) {
    double sum = 0;
    for (const double w : row) sum += w;
    EXPECT_NEAR(sum, 1.0, 1e-12) << "every merged target word's weights sum to 1";
  }
  EXPECT_EQ(piece_label("▁dij", true), "dij");
  EXPECT_EQ(piece_label("o", true), "\xC2\xB7o");
  EXPECT_EQ(piece_label("o", false), "o");
  EXPECT_EQ(piece_label("</s>", true), "</s>");
}

TEST(AttentionMatrix, LineSelections) {
  EXPECT_EQ(parse_line_selection("1,3,7-9", "sentences"), (std::vector<std::int64_t>{1, 3, 7, 8, 9}));
  EXPECT_EQ(parse_line_selection("4", "sentences"), (std::vector<std::int64_t>{4}));
  EXPECT_EQ(parse_line_selection("3,1-2", "sentences"), (std::vector<std::int64_t>{3, 1, 2}));
  for (const std::string bad : {"0", "3-1", "a", "", "1,,2", "2-", "-2", "1.5", "9223372036854775807",
                                "9223372036854775800-9223372036854775807", "99999999999999999999",
                                "1-1000000,1-1000000"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW_WITH(parse_line_selection(bad, "sentences"), ConfigError, "sentences");
  }
}

TEST(Figure, FormatsByExtensionAndFromOneDrawing) {
  EXPECT_EQ(image_format_of("a/b.SVG"), ImageFormat::svg);
  EXPECT_EQ(image_format_of("b.png"), ImageFormat::png);
  EXPECT_EQ(image_format_of("b.pdf"), ImageFormat::pdf);
  EXPECT_THROW_WITH(image_format_of("plot.jpg"), ConfigError, "plot.jpg", ".svg, .png or .pdf");
  EXPECT_EQ(parse_image_formats("png,svg", "format"), (std::vector<ImageFormat>{ImageFormat::png, ImageFormat::svg}));
  EXPECT_THROW_WITH(parse_image_formats("png,gif", "format"), ConfigError, "format", "'gif'");
  EXPECT_THROW_WITH(parse_image_formats("png,png", "format"), ConfigError, "twice");

  const auto figure = draw_attention_heatmap(parse_attention_line(kLine, "x"));
  const std::string png = figure->encode(ImageFormat::png, 2.0);
  ASSERT_GT(png.size(), 24u);
  EXPECT_EQ(png.substr(0, 8), kPngSignature);
  const auto [w, h] = png_size(png);
  EXPECT_EQ(w, static_cast<std::uint32_t>(std::ceil(figure->width() * 2)));
  EXPECT_EQ(h, static_cast<std::uint32_t>(std::ceil(figure->height() * 2)));
  EXPECT_EQ(png_size(figure->encode(ImageFormat::png, 1.0)).first, static_cast<std::uint32_t>(std::ceil(figure->width())));
  const std::string svg = figure->encode(ImageFormat::svg);
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_EQ(figure->encode(ImageFormat::pdf).rfind("%PDF", 0), 0u);
}

// One shaded cell per source x target position, at the cell size asked for, pieces or words.
TEST(Heatmap, OneCellPerPosition) {
  const AttentionMatrix pieces = parse_attention_line(kLine, "x");
  for (const double cell : {14.0, 9.0}) {
    HeatmapOptions options;
    options.cell_size = cell;
    EXPECT_EQ(test::count_filled_squares(draw_attention_heatmap(pieces, options)->encode(ImageFormat::svg), cell),
              4u * 5u) << cell;
    EXPECT_EQ(test::count_filled_squares(draw_attention_heatmap(merge_words(pieces), options)->encode(ImageFormat::svg),
                                         cell),
              3u * 3u) << cell;
  }
  AttentionMatrix empty;
  EXPECT_THROW_WITH(draw_attention_heatmap(empty), DataError, "empty translation");
}

TEST(Heatmap, WritesTheChosenSentencesAndNothingFromBadInput) {
  test::TempDir dir;
  const std::string empty_line = R"({"index":2,"source":[],"target":[],"attention":[]})";
  test::write_text(dir.path("a.json"), kLine + "\n" + empty_line + "\n" + kLine + "\n");
  HeatmapJob job;
  job.input = dir.path("a.json");
  job.output_dir = dir.path("out/maps");  // made with its parent
  const auto written = write_attention_heatmaps(job);
  EXPECT_EQ(written.size(), 4u) << "two sentences with translations, SVG and PNG each";
  EXPECT_TRUE(fs::exists(dir.path("out/maps/attention-0001.svg")));  // named by line, not by "index"
  EXPECT_TRUE(fs::exists(dir.path("out/maps/attention-0003.png")));
  EXPECT_EQ(test::read_text(dir.path("out/maps/attention-0003.png")).substr(0, 8), kPngSignature);

  job.output_dir = dir.path("picked");
  job.lines = {3};
  job.formats = {ImageFormat::pdf};
  job.merge_words = true;
  EXPECT_EQ(write_attention_heatmaps(job), (std::vector<std::string>{dir.path("picked/attention-0003.pdf")}));
  job.lines = {2};
  EXPECT_THROW_WITH(write_attention_heatmaps(job), ConfigError, "line 2", "empty translation");
  job.lines = {9};
  EXPECT_THROW_WITH(write_attention_heatmaps(job), ConfigError, "line 9 is not in");

  // A bad line anywhere: an error naming it, and no picture at all.
  test::write_text(dir.path("bad.json"), kLine + "\n{\"index\":4}\n");
  job.input = dir.path("bad.json");
  job.lines.clear();
  job.output_dir = dir.path("none");
  EXPECT_THROW_WITH(write_attention_heatmaps(job), DataError, "bad.json line 2");
  EXPECT_FALSE(fs::exists(dir.path("none")));
  test::write_text(dir.path("empty.json"), "");
  job.input = dir.path("empty.json");
  EXPECT_THROW_WITH(write_attention_heatmaps(job), DataError, "empty");
  // An output "folder" that is a file: one error, the file untouched.
  job.input = dir.path("a.json");
  job.output_dir = dir.path("a.json");
  EXPECT_THROW_WITH(write_attention_heatmaps(job), IoError, "a.json");
  EXPECT_EQ(test::read_text(dir.path("a.json")).substr(0, 10), kLine.substr(0, 10));
}

// The same line from three models, side by side: every panel's cells (3 x 20) in one SVG, a PNG
// as wide as the panels and their gaps, and one-line errors that write nothing.
TEST(AttentionComparison, DrawsEveryModelsHeatMapOfTheLineSideBySide) {
  test::TempDir dir;
  const std::string other =
      R"({"index":3,"source":["▁Y","▁dij","o",":","</s>"],"target":["▁And","▁sa","id","</s>"],)"
      R"("attention":[[1,0,0,0,0],[0,1,0,0,0],[0,0,1,0,0],[0,0,0,0,1]]})";
  test::write_text(dir.path("soft.json"), kLine + "\n" + kLine + "\n");
  test::write_text(dir.path("hard.json"), kLine + "\n" + other + "\n");
  test::write_text(dir.path("local.json"), other + "\n" + kLine + "\n");
  AttentionComparisonJob job;
  job.inputs = {dir.path("soft.json"), dir.path("hard.json"), dir.path("local.json")};
  job.labels = {"soft", "hard", "local"};
  job.line = 2;
  job.outputs = {dir.path("cmp.svg"), dir.path("cmp.png")};
  EXPECT_EQ(write_attention_comparison(job), job.outputs);
  const std::string svg = test::read_text(dir.path("cmp.svg"));
  EXPECT_EQ(test::count_filled_squares(svg, job.options.cell_size), 3u * 4u * 5u);
  for (const char* label : {">soft<", ">hard<", ">local<"}) EXPECT_EQ(svg.find(label), std::string::npos) << "text is drawn as glyphs";
  const auto single = draw_attention_heatmap(parse_attention_line(kLine, "x"), HeatmapOptions{});
  const auto [width, height] = png_size(test::read_text(dir.path("cmp.png")));
  EXPECT_NEAR(width, 2 * (3 * single->width() + 4 * 18), 8);  // 2 pixels per point
  EXPECT_NEAR(height, 2 * (single->height() + 2 * 18), 8);
  job.columns = 1;
  job.outputs = {dir.path("column.png")};
  write_attention_comparison(job);
  EXPECT_NEAR(png_size(test::read_text(dir.path("column.png"))).second, 2 * (3 * single->height() + 4 * 18), 8);

  AttentionComparisonJob bad = job;
  bad.outputs = {dir.path("bad.png")};
  bad.inputs = {dir.path("soft.json")};
  bad.labels.clear();
  EXPECT_THROW_WITH(write_attention_comparison(bad), ConfigError, "at least two attention files");
  bad = job;
  bad.outputs = {dir.path("bad.png")};
  bad.labels = {"one"};
  EXPECT_THROW_WITH(write_attention_comparison(bad), ConfigError, "1 labels for 3 files");
  bad.labels.clear();
  bad.line = 7;
  EXPECT_THROW_WITH(write_attention_comparison(bad), ConfigError, "line 7 is not in", "soft.json");
  bad.line = 2;
  test::write_text(dir.path("other.json"), kLine + "\n" + R"({"index":1,"source":["▁X","</s>"],"target":["▁x","</s>"],)"
                                                            R"("attention":[[1,0],[0,1]]})" + "\n");
  bad.inputs.push_back(dir.path("other.json"));
  bad.labels.clear();
  EXPECT_THROW_WITH(write_attention_comparison(bad), ConfigError, "other.json", "another source");
  bad.outputs = {dir.path("bad.gif")};
  EXPECT_THROW_WITH(write_attention_comparison(bad), ConfigError, "bad.gif");
  EXPECT_FALSE(fs::exists(dir.path("bad.png")));
  EXPECT_FALSE(fs::exists(dir.path("bad.gif")));
}

TEST(TrainingCurves, ReadsRunsKeepingTheLastEventOfARepeatedStep) {
  test::TempDir dir;
  fs::create_directories(dir.path("run"));
  test::write_text(dir.path("run/metrics.jsonl"),
                   R"({"event":"train","step":100,"target_tokens":1000,"loss":5.0,"ppl":148.4})" "\n"
                   R"({"event":"valid","step":100,"target_tokens":1000,"loss":4.5,"ppl":90.0,"bleu":3.5})" "\n"
                   R"({"event":"train","step":200,"target_tokens":2000,"loss":4.0,"ppl":54.6})" "\n"
                   R"({"event":"resume","step":100})" "\n"
                   R"({"event":"train","step":200,"target_tokens":2000,"loss":3.9,"ppl":49.4})" "\n"
                   R"({"event":"train","step":300,"tar)");  // cut short by a kill
  const RunMetrics run = read_run_metrics(dir.path("run"), "r");
  ASSERT_EQ(run.train.size(), 2u);
  EXPECT_DOUBLE_EQ(run.train[1].loss, 3.9);
  ASSERT_EQ(run.valid.size(), 1u);
  EXPECT_DOUBLE_EQ(run.valid[0].bleu, 3.5);
  const auto figure = draw_training_curves({run});
  EXPECT_EQ(figure->encode(ImageFormat::png).substr(0, 8), kPngSignature);

  TrainingCurvesJob job;
  job.run_dirs = {dir.path("run")};
  EXPECT_EQ(write_training_curves(job),
            (std::vector<std::string>{dir.path("run/curves.svg"), dir.path("run/curves.png")}));
  job.run_dirs = {dir.path("run"), dir.path("run")};
  EXPECT_THROW_WITH(write_training_curves(job), ConfigError, "-o");
  job.outputs = {dir.path("two.gif")};
  EXPECT_THROW_WITH(write_training_curves(job), ConfigError, "two.gif");
  job.labels = {"one"};
  job.outputs = {dir.path("two.svg")};
  EXPECT_THROW_WITH(write_training_curves(job), ConfigError, "1 labels for 2");

  // A line cut short by a kill, then the resumed run's lines after it: skipped, the rest kept; a
  // diverged loss (null) is a gap.
  test::write_text(dir.path("run/metrics.jsonl"),
                   R"({"event":"train","step":100,"target_tokens":1000,"loss":5.0,"ppl":148.4})" "\n"
                   R"({"event":"train","step":2)" "\n"  // MetricsLog ends a cut line before appending
                   R"({"event":"train","step":200,"target_tokens":2000,"loss":null,"ppl":null})" "\n");
  const RunMetrics resumed = read_run_metrics(dir.path("run"), "r");
  ASSERT_EQ(resumed.train.size(), 2u);
  EXPECT_TRUE(std::isnan(resumed.train[1].loss));
  test::write_text(dir.path("run/metrics.jsonl"), "{\"event\":\"train\",\"step\":1}\nnot json\n{}\n");
  EXPECT_THROW_WITH(read_run_metrics(dir.path("run"), "r"), DataError, "line 1", "loss");
  EXPECT_THROW_WITH(read_run_metrics(dir.path("missing"), "r"), IoError, "missing");
}

// Curves flat to the last bits, or with a single point, still get an axis (and end).
TEST(LineChart, FlatAndSinglePointCurves) {
  Panel flat{"flat", {"x", false, true, {}}, {"y", false, false, {}}, {}};
  flat.series.push_back({"a", "", {1, 2, 3}, {2.0, 2.0000000000000004, 2.0}, false});
  Panel single{"single", {"x", false, false, {}}, {"y", true, false, {}}, {}};
  single.series.push_back({"b", "", {5}, {7.5}, true});
  Panel none{"none", {"x", false, false, {}}, {"y", false, false, {}}, {}};
  none.series.push_back({"c", "", {1, 2}, {std::nan(""), std::nan("")}, false});
  const auto figure = draw_panels({flat, single, none}, ChartLayout{});
  EXPECT_EQ(figure->encode(ImageFormat::png).substr(0, 8), kPngSignature);
  EXPECT_THROW_WITH(draw_panels({}, ChartLayout{}), ConfigError, "at least one panel");
}

// Eleven systems (the attention study's kinds): the palette's seven colours solid, then dashed.
TEST(LengthCurves, SystemsPastThePaletteAreDashed) {
  std::vector<SystemBuckets> systems;
  for (int k = 0; k < 11; ++k) {
    LengthBucket shorter, longer;  // two points: a line between them
    shorter.high = longer.low = 10;
    shorter.sentences = longer.sentences = 3;
    shorter.scores.bleu = longer.scores.bleu = BleuScore{};
    shorter.scores.bleu->score = 10 + k;
    longer.scores.bleu->score = 12 + k;
    systems.push_back({"system " + std::to_string(k), {shorter, longer}});
  }
  ScoringOptions options;
  options.metrics = {"bleu"};
  const std::string svg = draw_length_curves(systems, LengthOf::source, options)->encode(ImageFormat::svg);
  std::size_t dashed = 0;
  for (std::size_t at = svg.find("stroke-dasharray"); at != std::string::npos; at = svg.find("stroke-dasharray", at + 1)) {
    ++dashed;
  }
  EXPECT_EQ(dashed, 2u * 4u) << "four dashed systems, each as a line and in the legend";
}

TEST(LengthCurves, SystemsMustShareTheirBuckets) {
  LengthBucket a;
  a.low = 0;
  a.high = 10;
  a.sentences = 3;
  LengthBucket b = a;
  b.high = 20;
  ScoringOptions options;
  EXPECT_EQ(draw_length_curves({{"x", {a}}, {"y", {a}}}, LengthOf::reference, options)->encode(ImageFormat::png)
                .substr(0, 8),
            kPngSignature);
  EXPECT_THROW_WITH(draw_length_curves({{"x", {a}}, {"y", {b}}}, LengthOf::reference, options), ConfigError,
                    "length-edges");
  EXPECT_THROW_WITH(draw_length_curves({}, LengthOf::source, options), ConfigError, "no system");
}

}  // namespace
}  // namespace nmt::plot
