// One table of names per enum: the one place where an enum's values are spelled, used to parse
// (with one error wording for every enum), to print, and by the programs to register the option
// (apps/common/option_table.h) and list the choices in --help.
//
//   const EnumNames<BridgeType>& enum_names(BridgeType) {
//     static const EnumNames<BridgeType> names("bridge type", {{BridgeType::zero, "zero"}, ...});
//     return names;
//   }
//
// `enum_names(E)` is found by argument-dependent lookup, so generic code (option tables, CLI11
// validators) reaches the table of any enum from a value of it.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace nmt {

/// "a", "a or b", "a, b or c": a list of choices as messages and help texts write it.
std::string join_choices(const std::vector<std::string>& names);

/// Throws ConfigError "unknown WHAT 'NAME' (expected a, b or c)" (NAME quoted at most 60 characters).
[[noreturn]] void throw_unknown_name(const std::string& what, const std::string& name,
                                     const std::vector<std::string>& names);

template <class Enum>
class EnumNames {
 public:
  /// `what` names the kind of value in messages ("attention type", "dist.backend").
  EnumNames(std::string what, std::initializer_list<std::pair<Enum, const char*>> names) : what_(std::move(what)) {
    for (const auto& [value, name] : names) entries_.emplace_back(value, name);
  }

  /// The value named `name` (exact match), or nothing.
  std::optional<Enum> find(const std::string& name) const {
    for (const auto& [value, text] : entries_) {
      if (text == name) return value;
    }
    return std::nullopt;
  }

  /// The value named `name` (exact match); ConfigError naming `what` and the choices otherwise.
  Enum parse(const std::string& name) const {
    if (const std::optional<Enum> value = find(name)) return *value;
    throw_unknown_name(what_, name, names());
  }

  /// The name of `value` ("?" for a value outside the table, which a cast could make).
  const std::string& name(Enum value) const {
    static const std::string unknown = "?";
    for (const auto& [v, text] : entries_) {
      if (v == value) return text;
    }
    return unknown;
  }

  /// Every name, in the table's order.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& entry : entries_) out.push_back(entry.second);
    return out;
  }

  const std::string& what() const { return what_; }

 private:
  std::string what_;
  std::vector<std::pair<Enum, std::string>> entries_;
};

/// The name of any enum value with a table: name_of(AttentionType::dot) is "dot".
template <class Enum>
const std::string& name_of(Enum value) {
  return enum_names(value).name(value);
}

/// The value of any enum with a table: parse_enum<AttentionType>("dot"). ConfigError otherwise.
template <class Enum>
Enum parse_enum(const std::string& name) {
  return enum_names(Enum{}).parse(name);
}

}  // namespace nmt
