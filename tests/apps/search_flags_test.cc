// nmt-translate's and nmt-serve's search flags come from the one table of the search options
// (nmt/search/search_option_table.h): every entry with a key is a flag of nmt-translate, every entry
// a request starts from the server's setting of is a flag of nmt-serve, each flag sets its own field
// and nothing else, and --help shows SearchOptions' defaults. No option is named here.
#include "apps/common/search_flags.h"

#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <vector>

#include "apps/common/option_table.h"
#include "nmt/search/search_option_table.h"

namespace nmt::app {
namespace {

// Parses `arguments` (without the program's name) with the search flags of `program`.
SearchOptions parse_search_flags(SearchFlags program, std::vector<std::string> arguments) {
  CLI::App app{"test"};
  SearchOptions options;
  add_search_flags(app, options, program);
  arguments.insert(arguments.begin(), "program");
  std::vector<char*> argv;
  for (auto& a : arguments) argv.push_back(a.data());
  app.parse(static_cast<int>(argv.size()), argv.data());
  return options;
}

// A value other than `field`, as it would be typed; none for a switch (a bool), which the flag turns on.
template <class T>
std::string other_flag_value(const T& field) {
  if constexpr (std::is_same_v<T, bool>) {
    return "";
  } else if constexpr (std::is_enum_v<T>) {
    for (const std::string& name : enum_names(field).names()) {
      if (name != name_of(field)) return name;
    }
    return "";
  } else if constexpr (std::is_floating_point_v<T>) {
    return std::to_string(field + 0.25);
  } else {
    return std::to_string(field + 1);
  }
}

bool has_flag(SearchFlags program, const SearchOptionDoc& doc) {
  return doc.key != nullptr && (program == SearchFlags::translate || doc.server_default);
}

TEST(SearchFlags, EveryEntryWithAKeyIsAFlagOfItsProgramsThatSetsItsOwnFieldOnly) {
  for (const SearchFlags program : {SearchFlags::translate, SearchFlags::serve}) {
    CLI::App app{"test"};
    SearchOptions bound;
    add_search_flags(app, bound, program);
    EXPECT_NO_THROW(require_decimal_checks(app));
    int flags = 0;
    for_each_search_option([&](const SearchOptionDoc& doc, auto member) {
      if (!has_flag(program, doc)) {
        if (doc.key != nullptr) {
          EXPECT_EQ(app.get_option_no_throw(std::string("--") + doc.key), nullptr) << doc.key;
        }
        return;
      }
      ++flags;
      const std::string key = doc.key;
      SearchOptions expected;
      const std::string value = other_flag_value(expected.*member);
      const auto typed = [&](const std::string& flag) {
        return value.empty() ? std::vector<std::string>{flag} : std::vector<std::string>{flag, value};
      };
      const SearchOptions got = parse_search_flags(program, typed("--" + key));
      EXPECT_NE(got.*member, expected.*member) << "--" << key << " " << value;
      expected.*member = got.*member;
      EXPECT_EQ(got, expected) << "--" << key << " changed another option";
      if (doc.short_flag != nullptr) {
        EXPECT_EQ(parse_search_flags(program, typed(doc.short_flag)), got) << doc.short_flag;
      }
    });
    // Each entry's flag once, and none besides (CLI11 counts --help).
    EXPECT_EQ(app.get_options().size(), static_cast<std::size_t>(flags) + 1);
    EXPECT_GT(flags, 4);
  }
}

TEST(SearchFlags, HelpShowsTheTableAndSearchOptionsDefaults) {
  for (const SearchFlags program : {SearchFlags::translate, SearchFlags::serve}) {
    CLI::App app{"test"};
    SearchOptions options;
    add_search_flags(app, options, program);
    const std::string help = app.help();
    for_each_search_option([&](const SearchOptionDoc& doc, auto member) {
      if (!has_flag(program, doc)) return;
      const auto* option = app.get_option_no_throw(std::string("--") + doc.key);
      ASSERT_NE(option, nullptr) << doc.key;
      EXPECT_EQ(option->get_description().rfind(doc.help, 0), 0u) << doc.key;
      if (program == SearchFlags::serve) {
        EXPECT_NE(option->get_description().find("a request's default"), std::string::npos) << doc.key;
      }
      std::string shown;
      using Field = std::remove_reference_t<decltype(options.*member)>;
      if constexpr (std::is_same_v<Field, bool>) {
        // A switch: off unless given, takes no value, and so shows no default.
        EXPECT_FALSE(options.*member) << doc.key;
        EXPECT_EQ(option->get_expected_max(), 0) << doc.key;
      } else if constexpr (std::is_enum_v<Field>) {
        shown = name_of(options.*member);
      } else {
        shown = CLI::detail::to_string(options.*member);
      }
      EXPECT_EQ(option->get_default_str(), shown) << doc.key;
      EXPECT_NE(help.find(std::string("--") + doc.key), std::string::npos) << help;
    });
  }
}

}  // namespace
}  // namespace nmt::app
