#include "nmt/core/text_list.h"

#include <gtest/gtest.h>

namespace nmt {
namespace {

// Every piece as written, empty ones included: each option's parser decides what they mean.
TEST(SplitList, KeepsEveryPieceAsWritten) {
  using Pieces = std::vector<std::string>;
  EXPECT_EQ(split_list("bleu,chrf"), (Pieces{"bleu", "chrf"}));
  EXPECT_EQ(split_list("1,,2"), (Pieces{"1", "", "2"}));
  EXPECT_EQ(split_list(""), (Pieces{""}));
  EXPECT_EQ(split_list(",a,"), (Pieces{"", "a", ""}));
  EXPECT_EQ(split_list("nrefs:1|case:mixed", '|'), (Pieces{"nrefs:1", "case:mixed"}));
  EXPECT_EQ(split_list(" a , b"), (Pieces{" a ", " b"}));
}

}  // namespace
}  // namespace nmt
