// nmt-train's options come from the library's one option table (TrainConfig's for_each_option):
// every entry is a flag and a config-file key, the effective configuration the library writes
// (to_toml) reads back to itself, and enum options take their names from the enums' tables.
#include "apps/common/train_options.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "apps/common/config_file.h"
#include "tests/test_util.h"

namespace nmt::app {
namespace {

// Parses `arguments` (without the program's name) into `app` as nmt-train would.
void parse_into(CLI::App& app, std::vector<std::string> arguments) {
  arguments.insert(arguments.begin(), "nmt-train");
  std::vector<char*> argv;
  for (auto& a : arguments) argv.push_back(a.data());
  app.parse(static_cast<int>(argv.size()), argv.data());
}

// Parses `arguments` as nmt-train would and returns the configuration.
TrainConfig parse(std::vector<std::string> arguments) {
  CLI::App app{"test"};
  add_config_file_option(app);
  TrainOptions options(app);
  parse_into(app, std::move(arguments));
  return options.config();
}

// A value for `field` other than its current one, as it would be typed.
template <class T>
std::string other_value(const T& field) {
  if constexpr (std::is_same_v<T, std::string>) {
    return field + "x";
  } else if constexpr (std::is_same_v<T, bool>) {
    return field ? "false" : "true";
  } else if constexpr (std::is_enum_v<T>) {
    for (const std::string& name : enum_names(field).names()) {
      if (name != name_of(field)) return name;
    }
    return "";
  } else if constexpr (std::is_same_v<T, plot::ImageFormatChoice>) {
    return field.text() == "svg" ? "pdf" : "svg";
  } else if constexpr (std::is_same_v<T, CorpusList>) {
    return R"({source = "a.es", target = "a.en", weight = 2})";
  } else if constexpr (std::is_floating_point_v<T>) {
    return std::to_string(field + 0.25);
  } else {
    return std::to_string(field + 1);
  }
}

// "section.key = value" per option line of TOML text.
std::vector<std::string> dotted_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string section;
  std::size_t start = 0;
  for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    const std::string line = text.substr(start, end - start);
    if (line.rfind("[", 0) == 0) {
      section = line.substr(1, line.size() - 2) + ".";
    } else if (!line.empty()) {
      lines.push_back(section + line);
    }
  }
  return lines;
}

TEST(TrainOptions, EveryTableEntryIsAFlagThatChangesItsOwnLineOfTheEffectiveConfiguration) {
  const std::vector<std::string> defaults = dotted_lines(to_toml(TrainConfig{}));
  TrainConfig table;
  int options = 0;
  for_each_option(table, [&](const OptionDoc& doc, const auto& field) {
    ++options;
    const std::string key = doc.key;
    std::vector<std::string> changed = dotted_lines(to_toml(parse({"--" + key, other_value(field)})));
    if constexpr (std::is_same_v<std::decay_t<decltype(field)>, CorpusList>) {
      // A corpus is a [[data.corpus]] table of its own, six keys, after [data]'s.
      const auto corpus_lines = std::stable_partition(changed.begin(), changed.end(), [](const std::string& line) {
        return line.rfind("[data.corpus].", 0) != 0;
      });
      EXPECT_EQ(std::vector<std::string>(corpus_lines, changed.end()),
                (std::vector<std::string>{"[data.corpus].source = \"a.es\"", "[data.corpus].target = \"a.en\"",
                                          "[data.corpus].weight = 2", "[data.corpus].tag = \"\"",
                                          "[data.corpus].reverse = false", "[data.corpus].reverse-tag = \"\""}));
      changed.erase(corpus_lines, changed.end());
      EXPECT_EQ(changed, defaults);
      return;
    }
    if (key == "data.default-tag" || key == "train.word-dropout") {  // written only when set, as data.corpus
      ASSERT_EQ(changed.size(), defaults.size() + 1);
      EXPECT_NE(std::find_if(changed.begin(), changed.end(),
                             [&](const std::string& line) { return line.rfind(key + " = ", 0) == 0; }),
                changed.end());
      return;
    }
    ASSERT_EQ(changed.size(), defaults.size()) << key;
    for (std::size_t i = 0; i < defaults.size(); ++i) {
      if (defaults[i].rfind(key + " = ", 0) == 0) {
        EXPECT_NE(changed[i], defaults[i]) << key;
      } else {
        EXPECT_EQ(changed[i], defaults[i]) << "--" << key << " changed another line";
      }
    }
  });
  EXPECT_EQ(options, 78);  // a new option belongs in the table (and in this count)
  EXPECT_EQ(defaults.size(), 75u);  // data.corpus, data.default-tag and train.word-dropout write no line until set
}

TEST(TrainOptions, TheEffectiveConfigurationReadsBackToItself) {
  test::TempDir dir;
  for (const auto& arguments : std::vector<std::vector<std::string>>{
           {},
           {"--optim.lr", ".5", "--model.attention", "none", "--valid.attention-maps", "svg,PNG", "--seed",
            "18446744073709551615", "--data.source-spm", "a \"quoted\"\\path\tx", "--train.max-minutes", "1e-3",
            "--model.share-embeddings", "true", "--dist.master-addr", "años"},
           {"--data.corpus", R"({source = "a.es", target = "a \"b\".en", weight = 2.5, tag = "<2x>"})", "--data.corpus",
            "source = 'b.es', target = 'b.en', reverse = true, reverse-tag = '<2es>'", "--data.default-tag", "<2x>"}}) {
    const TrainConfig first = parse(arguments);
    test::write_text(dir.path("config.toml"), to_toml(first));
    const TrainConfig again = parse({"--config", dir.path("config.toml")});
    EXPECT_EQ(to_toml(again), to_toml(first));
  }
  // Canonical numbers: ".5" is written 0.5, which the strict reader accepts.
  EXPECT_NE(to_toml(parse({"--optim.lr", ".5"})).find("lr = 0.5\n"), std::string::npos);
  EXPECT_NE(to_toml(parse({"--valid.attention-maps", "svg,PNG"})).find("attention-maps = \"svg,png\"\n"),
            std::string::npos);
}

TEST(TrainOptions, CorporaAreArraysOfTablesInAFileAndInlineTablesOnTheCommandLine) {
  test::TempDir dir;
  test::write_text(dir.path("c.toml"),
                   "[data]\ndev-source = \"d.es\"\n\n[[data.corpus]]\nsource = \"web.es\"\ntarget = \"web.en\"\n"
                   "weight = 3\n\n[[data.corpus]]\nsource = \"kjv.es\"\ntarget = \"kjv.en\"\ntag = \"<2kjv>\"\n"
                   "reverse = true\nreverse-tag = \"<2es>\"\n\n[train]\nmax-steps = 5\n");
  const TrainConfig config = parse({"--config", dir.path("c.toml")});
  ASSERT_EQ(config.data.corpora.corpora.size(), 2u);
  EXPECT_EQ(config.data.corpora.corpora[0].source, "web.es");
  EXPECT_EQ(config.data.corpora.corpora[0].weight, 3);
  EXPECT_EQ(config.data.corpora.corpora[0].tag, "");
  EXPECT_EQ(config.data.corpora.corpora[1].tag, "<2kjv>");
  EXPECT_TRUE(config.data.corpora.corpora[1].reverse);
  EXPECT_EQ(config.data.corpora.corpora[1].reverse_tag, "<2es>");
  EXPECT_EQ(config.data.dev_source, "d.es");
  EXPECT_EQ(config.train.max_steps, 5);
  // The command line replaces the file's corpora.
  const TrainConfig replaced = parse({"--config", dir.path("c.toml"), "--data.corpus", "{source = 'x', target = 'y'}"});
  ASSERT_EQ(replaced.data.corpora.corpora.size(), 1u);
  EXPECT_EQ(replaced.data.corpora.corpora[0].source, "x");

  const auto refuses = [&](const std::string& text, const std::string& expected) {
    test::write_text(dir.path("bad.toml"), text);
    try {
      parse({"--config", dir.path("bad.toml")});
      ADD_FAILURE() << "accepted: " << text;
    } catch (const CLI::Error& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  };
  refuses("[[data.corpus]]\nsource = \"a\"\nwieght = 2\n", "bad.toml:3: data.corpus: unknown key 'wieght'");
  refuses("[[data.corpus]]\nsource = \"a\"\n[[data.corpus]]\nweight = \"2\"\n",
          "bad.toml:4: data.corpus.weight must be a number, got '2'");
  refuses("[[data.corpora]]\nsource = \"a\"\n", "bad.toml:1: unknown array of tables [[data.corpora]]");
  refuses("[data]\ncorpus = \"a\"\n", "bad.toml:2: unknown key 'data.corpus'");
  refuses("[[model.attention]]\n", "bad.toml:1: unknown array of tables [[model.attention]]");
  try {
    parse({"--data.corpus", "{source = a.es}"});
    ADD_FAILURE() << "a bare string accepted";
  } catch (const CLI::Error& e) {
    EXPECT_NE(std::string(e.what()).find("'a.es' is not a TOML value"), std::string::npos) << e.what();
  }
}

TEST(TrainOptions, EnumNamesAreCheckedWhenParsedNamingTheOption) {
  EXPECT_EQ(parse({"--model.attention", "dot"}).model.attention, AttentionType::dot);
  EXPECT_EQ(parse({"--valid.attention-maps", "none"}).valid.attention_maps.none(), true);
  try {
    parse({"--model.attention", "cosine"});
    ADD_FAILURE() << "cosine accepted";
  } catch (const CLI::ValidationError& e) {
    EXPECT_STREQ(e.what(),
                 "--model.attention: unknown attention type 'cosine' (expected bahdanau, dot, general, concat or none)");
  }
  try {
    parse({"--valid.attention-maps", "gif"});
    ADD_FAILURE() << "gif accepted";
  } catch (const CLI::ValidationError& e) {
    EXPECT_STREQ(e.what(),
                 "--valid.attention-maps: unknown image format 'gif' (expected svg, png or pdf, comma-separated)");
  }
}

TEST(TrainOptions, HelpShowsTheChoicesAndTheStructsDefaults) {
  CLI::App app{"test"};
  TrainOptions options(app);
  const std::string help = app.help();
  // CLI11 2.1 shows a default as "=value", later versions as " [value]".
  const auto shows = [&](const std::string& option, const std::string& value) {
    return help.find(option + "=" + value) != std::string::npos || help.find(option + " [" + value + "]") != std::string::npos;
  };
  EXPECT_TRUE(shows("--model.attention {bahdanau,dot,general,concat,none}", "bahdanau")) << help;
  EXPECT_TRUE(shows("--optim.lr FLOAT", "0.0003")) << help;
  EXPECT_TRUE(shows("--valid.attention-maps FORMATS", "png")) << help;
  EXPECT_NE(help.find("--resume"), std::string::npos) << help;
}

}  // namespace
}  // namespace nmt::app

namespace nmt::app {
namespace {

// --init-from compares only the [model] options the user gave: those from the command line and
// those from the config file, not the defaults.
TEST(TrainOptions, KnowsWhichOptionsWereGiven) {
  test::TempDir dir;
  test::write_text(dir.path("c.toml"), "seed = 3\n[model]\nattention = \"dot\"\n");
  CLI::App app{"test"};
  add_config_file_option(app);
  TrainOptions options(app);
  parse_into(app, {"--config", dir.path("c.toml"), "--model.dropout", "0.1"});
  auto given = options.explicitly_set();
  std::sort(given.begin(), given.end());
  EXPECT_EQ(given, (std::vector<std::string>{"model.attention", "model.dropout", "seed"}));
}

}  // namespace
}  // namespace nmt::app
