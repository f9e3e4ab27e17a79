#include "nmt/core/toml_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>

namespace nmt {
namespace {

TEST(TomlWriter, FloatsInTheCanonicalForm) {
  // What C++ streams print for these (six significant digits), so common values read as typed.
  EXPECT_EQ(toml_float(0.0003), "0.0003");
  EXPECT_EQ(toml_float(1e-8), "1e-08");
  EXPECT_EQ(toml_float(1e-6), "1e-06");
  EXPECT_EQ(toml_float(300), "300");
  EXPECT_EQ(toml_float(1.0), "1");
  EXPECT_EQ(toml_float(0), "0");
  EXPECT_EQ(toml_float(0.999), "0.999");
  EXPECT_EQ(toml_float(1e38), "1e+38");
  EXPECT_EQ(toml_float(-2.5), "-2.5");
  // More digits only where six would change the value.
  EXPECT_EQ(toml_float(0.123456789), "0.123456789");
  EXPECT_EQ(toml_float(1234567), "1234567");
  for (const double v : {0.1, 1.0 / 3, 2.0 / 3e-7, 6.02214076e23, std::numeric_limits<double>::denorm_min(),
                         std::numeric_limits<double>::max()}) {
    EXPECT_EQ(std::strtod(toml_float(v).c_str(), nullptr), v) << toml_float(v);
  }
}

TEST(TomlWriter, StringsAreQuotedAndEscaped) {
  EXPECT_EQ(toml_string("runs/x"), "\"runs/x\"");
  EXPECT_EQ(toml_string("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(toml_string(std::string("\n\t\x01\x7F", 4)), "\"\\n\\t\\u0001\\u007F\"");
  EXPECT_EQ(toml_string("años ▁"), "\"años ▁\"");  // UTF-8 as it is
}

TEST(TomlWriter, TopLevelKeysFirstThenSectionsInFirstSeenOrder) {
  TomlWriter writer;
  writer.add("train.max-steps", "5");
  writer.add("seed", "1");
  writer.add("model.attention", "\"dot\"");
  writer.add("train.log-every", "10");
  writer.add("run-dir", "\"r\"");
  EXPECT_EQ(writer.text(),
            "seed = 1\nrun-dir = \"r\"\n\n[train]\nmax-steps = 5\nlog-every = 10\n\n[model]\nattention = \"dot\"\n");
  EXPECT_EQ(TomlWriter().text(), "");
}

}  // namespace
}  // namespace nmt
