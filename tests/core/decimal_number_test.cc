#include "nmt/core/decimal_number.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "nmt/core/error.h"
#include "tests/test_util.h"

namespace nmt {
namespace {

TEST(DecimalNumber, IntegersAreDecimalWhateverTheirLeadingZeros) {
  EXPECT_EQ(parse_decimal_integer("010", "x"), 10);  // not octal 8
  EXPECT_EQ(parse_decimal_integer("+7", "x"), 7);
  EXPECT_EQ(parse_decimal_integer("-0", "x"), 0);
  EXPECT_EQ(parse_decimal_integer("-9223372036854775808", "x"), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(parse_decimal_integer("9223372036854775807", "x"), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(parse_decimal_unsigned("18446744073709551615", "x"), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(parse_decimal_unsigned("007", "x"), 7u);
}

TEST(DecimalNumber, OtherBasesSpacesAndSeparatorsAreNotNumbers) {
  for (const char* text : {"0x10", "0o7", "0b1", "1_000", " 5", "5 ", "", "+", "-", "1e3", "5.0", "٣", "1,000", "--1"}) {
    EXPECT_THROW_WITH(parse_decimal_integer(text, "--beam-size"), ConfigError, "--beam-size: '",
                      "' is not a decimal integer");
  }
  EXPECT_THROW_WITH(parse_decimal_unsigned("-1", "--chunk-lines"), ConfigError,
                    "--chunk-lines must be in [0, 18446744073709551615], got -1");
  EXPECT_THROW_WITH(parse_decimal_unsigned("+-1", "n"), ConfigError, "n: '+-1' is not a decimal integer");
}

TEST(DecimalNumber, OutOfRangeNamesTheLimitsAndNeverWraps) {
  EXPECT_THROW_WITH(parse_decimal_integer("9223372036854775808", "k"), ConfigError,
                    "k must be in [-9223372036854775808, 9223372036854775807], got 9223372036854775808");
  EXPECT_THROW_WITH(parse_decimal_integer("-99999999999999999999999", "k"), ConfigError, "got -99999999999999999999999");
  EXPECT_THROW_WITH(parse_decimal_integer("2147483648", "--threads", -2147483648LL, 2147483647), ConfigError,
                    "--threads must be in [-2147483648, 2147483647], got 2147483648");
  EXPECT_THROW_WITH(parse_decimal_unsigned("18446744073709551616", "u"), ConfigError, "got 18446744073709551616");
  const std::string long_digits(1000, '9');
  EXPECT_THROW_WITH(parse_decimal_integer(long_digits, "k"), ConfigError, "(1000 bytes)");
}

TEST(DecimalNumber, FloatsTakeTheUsualDecimalForms) {
  EXPECT_EQ(parse_decimal_float(".5", "x"), 0.5);
  EXPECT_EQ(parse_decimal_float("5.", "x"), 5.0);
  EXPECT_EQ(parse_decimal_float("-1e-3", "x"), -1e-3);
  EXPECT_EQ(parse_decimal_float("1E3", "x"), 1000.0);
  EXPECT_EQ(parse_decimal_float("007.25", "x"), 7.25);
  EXPECT_EQ(parse_decimal_float("1e-400", "x"), 0.0);  // underflow: a tiny number, not an error
  for (const char* text : {"nan", "inf", "-inf", "0x1p3", ".", "e5", "1e", "1e+", "1.2.3", " 1", "1_0", ""}) {
    EXPECT_THROW_WITH(parse_decimal_float(text, "--lr"), ConfigError, "is not a decimal number");
  }
  EXPECT_THROW_WITH(parse_decimal_float("1e999", "--lr"), ConfigError, "--lr: '1e999' is beyond the range of a double");
  EXPECT_THROW_WITH(parse_decimal_float("-1e999", "--lr"), ConfigError, "beyond the range");
}

TEST(DecimalNumber, QuotedExcerptsStayOneShortLine) {
  EXPECT_EQ(quoted_excerpt("abc"), "'abc'");
  EXPECT_EQ(quoted_excerpt(std::string("a\0b\n", 4)), "'a\\x00b\\x0a'");
  EXPECT_EQ(quoted_excerpt(std::string(100, 'x'), 5), "'xxxxx...' (100 bytes)");
}

}  // namespace
}  // namespace nmt
