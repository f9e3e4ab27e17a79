// nmt-serve's search settings come from the one table of the search options
// (nmt/search/search_option_table.h): every entry is a request field that sets its own option
// within its bounds, /v1/model's defaults list every option a request starts from the server's
// setting of, and the batch key (RequestSearch's operator==) tells apart settings that differ in any
// one option. No option is named here but in the checks of the messages' wording.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <type_traits>

#include "nmt/search/search_option_table.h"
#include "nmt/serve/serve_api.h"

namespace nmt {
namespace {

using nlohmann::json;

template <class T>
using Plain = std::remove_const_t<std::remove_reference_t<T>>;

// Another value than `value`: another name, the other boolean, a number 1 higher.
template <class T>
T other_value(T value) {
  if constexpr (std::is_enum_v<T>) {
    for (const std::string& name : enum_names(value).names()) {
      if (name != name_of(value)) return parse_enum<T>(name);
    }
    return value;
  } else if constexpr (std::is_same_v<T, bool>) {
    return !value;
  } else {
    return value + 1;
  }
}

// A value as a request writes it.
template <class T>
json as_json(T value) {
  if constexpr (std::is_enum_v<T>) {
    return name_of(value);
  } else {
    return value;
  }
}

// The message of the HttpError that request_search throws (none: "").
std::string error_of(const json& request, const ServeOptions& options = ServeOptions{}) {
  try {
    request_search(request, options);
  } catch (const HttpError& e) {
    EXPECT_EQ(e.status(), 400);
    return e.what();
  }
  return "";
}

TEST(SearchSettings, EveryOptionIsARequestFieldThatSetsItsOwnOptionOnly) {
  const ServeOptions options;
  const SearchOptions start = request_search(json::object(), options).search;
  int fields = 0;
  for_each_search_option([&](const SearchOptionDoc& doc, auto member) {
    ++fields;
    using T = Plain<decltype(start.*member)>;
    // Within the bounds of every kind: the lower bound, or one above it (a number), or another value.
    T value = other_value(start.*member);
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      value = start.*member == static_cast<T>(doc.request.low) ? static_cast<T>(doc.request.low + 1)
                                                                 : static_cast<T>(doc.request.low);
    }
    const RequestSearch got = request_search({{doc.field, as_json(value)}}, options);
    SearchOptions expected = start;
    expected.*member = value;
    EXPECT_EQ(got.search, expected) << doc.field << " " << as_json(value);
    EXPECT_NE(got.search, start) << doc.field;
    EXPECT_FALSE(got.replace_unknown);
  });
  EXPECT_GT(fields, 4);
  EXPECT_TRUE(request_search({{"replace_unk", true}}, options).replace_unknown);
}

TEST(SearchSettings, ARequestStartsFromTheServersSettingOrFromTheOptionsOwnDefault) {
  ServeOptions options;
  for_each_search_option([&](const SearchOptionDoc&, auto member) {
    options.search.*member = other_value(options.search.*member);
  });
  const SearchOptions got = request_search(json::object(), options).search;
  const SearchOptions own;
  for_each_search_option([&](const SearchOptionDoc& doc, auto member) {
    EXPECT_EQ(got.*member, doc.server_default ? options.search.*member : own.*member) << doc.field;
  });
}

TEST(SearchSettings, EveryBoundAndTypeIsCheckedNamingTheField) {
  const ServeOptions options;
  const SearchOptions start = request_search(json::object(), options).search;
  for_each_search_option([&](const SearchOptionDoc& doc, auto member) {
    const std::string field = doc.field;
    EXPECT_EQ(error_of({{doc.field, json::array()}}, options).rfind(field + ": must be ", 0), 0u) << field;
    using T = Plain<decltype(start.*member)>;
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      ASSERT_NE(doc.request.ceiling, RequestBounds::Ceiling::none) << field << ": a number needs bounds";
      const T below = static_cast<T>(doc.request.low) - 1;
      EXPECT_EQ(error_of({{doc.field, below}}, options).rfind(field + ": must be in [", 0), 0u) << field;
      // The server's own setting is a request's most.
      if (doc.request.ceiling == RequestBounds::Ceiling::server_value) {
        const T above = start.*member + 1;
        EXPECT_EQ(error_of({{doc.field, above}}, options).rfind(field + ": must be in [", 0), 0u) << field;
      }
    } else {
      EXPECT_EQ(doc.request.ceiling, RequestBounds::Ceiling::none) << field;
    }
  });
}

TEST(SearchSettings, MessagesKeepTheirWording) {
  ServeOptions options;
  options.search.beam_size = 3;
  options.limits.max_beam = 4;
  options.limits.max_alternatives = 3;
  EXPECT_EQ(error_of({{"beam", 0}}, options), "beam: must be in [1, 4], got 0");
  EXPECT_EQ(error_of({{"beam", "5"}}, options), "beam: must be an integer, got \"5\"");
  EXPECT_EQ(error_of({{"n_best", 4}}, options), "n_best: must be in [1, 3], got 4");
  EXPECT_EQ(error_of({{"beam", 4}, {"n_best", 5}}, options), "n_best: must be in [1, 4], got 5");
  EXPECT_EQ(error_of({{"attention", 1}}, options), "attention: must be true or false, got 1");
  EXPECT_EQ(error_of({{"length_penalty", 1}}, options), "length_penalty: must be none, average or gnmt");
  EXPECT_EQ(error_of({{"length_penalty", "long"}}, options), "length_penalty: must be none, average or gnmt, got \"long\"");
  EXPECT_EQ(error_of({{"length_alpha", 11}}, options), "length_alpha: must be in [0.0, 10.0], got 11");
  EXPECT_EQ(error_of({{"max_length_a", 2.5}}, options), "max_length_a: must be in [0.0, 2.0], got 2.5");
  EXPECT_EQ(error_of({{"max_length_b", 11}}, options), "max_length_b: must be in [0, 10], got 11");
  EXPECT_EQ(error_of({{"min_length", 1.5}}, options), "min_length: must be an integer, got 1.5");
  EXPECT_EQ(error_of({{"no_repeat_ngram", 101}}, options), "no_repeat_ngram: must be in [0, 100], got 101");
  EXPECT_EQ(error_of({{"replace_unk", "no"}}, options), "replace_unk: must be true or false, got \"no\"");
  // In the table's order: the first bad field is named.
  EXPECT_EQ(error_of({{"min_length", -1}, {"beam", 0}}, options), "beam: must be in [1, 4], got 0");
}

TEST(SearchSettings, ModelDefaultsListEveryOptionARequestStartsFromTheServersSettingOf) {
  ServeOptions options;
  options.search.beam_size = 3;
  options.search.length_penalty = LengthPenalty::average;
  const json defaults = search_defaults(options.search);
  std::size_t listed = 0;
  for_each_search_option([&](const SearchOptionDoc& doc, auto member) {
    EXPECT_EQ(defaults.contains(doc.field), doc.server_default) << doc.field;
    if (!doc.server_default) return;
    ++listed;
    EXPECT_EQ(defaults[doc.field], as_json(options.search.*member)) << doc.field;
  });
  EXPECT_EQ(defaults.size(), listed);
  EXPECT_EQ(defaults.dump(), R"({"beam":3,"coverage_beta":0.0,"hard_attention":false,"length_alpha":0.6,)"
                             R"("length_penalty":"average","max_length_a":2.0,"max_length_b":10,"min_length":0,"no_repeat_ngram":0})");
}

TEST(SearchSettings, SettingsThatDifferInAnyOneOptionNeverShareABatch) {
  const RequestSearch first;
  EXPECT_EQ(first, RequestSearch(first));
  for_each_search_option([&](const SearchOptionDoc& doc, auto member) {
    RequestSearch second = first;
    second.search.*member = other_value(second.search.*member);
    EXPECT_NE(first, second) << doc.field;
    EXPECT_NE(first.search, second.search) << doc.field;
  });
  RequestSearch second = first;
  second.replace_unknown = true;
  EXPECT_NE(first, second);
  RequestSearch tagged = first;  // sources with another tag are other sources
  tagged.tag = "<2es>";
  EXPECT_NE(first, tagged);
}

}  // namespace
}  // namespace nmt
