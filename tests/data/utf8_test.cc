#include "nmt/data/utf8.h"

#include <gtest/gtest.h>

namespace nmt {
namespace {

constexpr auto npos = std::string_view::npos;

TEST(Utf8, AcceptsValidText) {
  EXPECT_EQ(find_invalid_utf8(""), npos);
  EXPECT_EQ(find_invalid_utf8("plain ascii"), npos);
  EXPECT_EQ(find_invalid_utf8("crió Jehová ¶ “quoted” — 中文 𝄞"), npos);
  EXPECT_EQ(find_invalid_utf8("\xF4\x8F\xBF\xBF"), npos);  // U+10FFFF, the last code point
  EXPECT_EQ(find_invalid_utf8("\xED\x9F\xBF"), npos);      // U+D7FF, just below the surrogates
}

TEST(Utf8, ReportsTheOffsetOfTheFirstBadSequence) {
  EXPECT_EQ(find_invalid_utf8("ab\xFF"), 2u);               // never valid
  EXPECT_EQ(find_invalid_utf8("\x80"), 0u);                 // lone continuation byte
  EXPECT_EQ(find_invalid_utf8("ok \xC3"), 3u);              // truncated 2-byte sequence
  EXPECT_EQ(find_invalid_utf8("\xE2\x82"), 0u);             // truncated 3-byte sequence
  EXPECT_EQ(find_invalid_utf8("\xC0\xAF"), 0u);             // overlong "/"
  EXPECT_EQ(find_invalid_utf8("\xE0\x80\xAF"), 0u);         // overlong 3-byte form
  EXPECT_EQ(find_invalid_utf8("\xF0\x80\x80\xAF"), 0u);     // overlong 4-byte form
  EXPECT_EQ(find_invalid_utf8("x\xED\xA0\x80"), 1u);        // U+D800, a surrogate
  EXPECT_EQ(find_invalid_utf8("\xF4\x90\x80\x80"), 0u);     // above U+10FFFF
  EXPECT_EQ(find_invalid_utf8("\xC3\xA9\xC3("), 2u);        // bad continuation after a good char
  EXPECT_EQ(find_invalid_utf8("\xF5\x80\x80\x80"), 0u);     // F5.. never valid
}

}  // namespace
}  // namespace nmt
