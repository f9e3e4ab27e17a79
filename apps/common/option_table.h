// Registers an option table's entries (OptionDoc + field, e.g. TrainConfig's for_each_option) as
// CLI11 options: the flag --KEY, which a config file sets as [section] key; the default shown by
// --help is the field's value at registration, that is the library struct's default. Enums take
// their names from the enum's table (nmt/core/enum_names.h): --help lists them, and a bad name is
// a usage error naming the option and the choices.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <type_traits>

#include "nmt/core/enum_names.h"
#include "nmt/core/error.h"
#include "nmt/core/option_doc.h"
#include "nmt/plot/figure.h"

namespace nmt::app {

/// A CLI11 check that runs `parse` on the value and reports its ConfigError as the option's error.
template <class Parse>
CLI::Validator library_check(Parse parse) {
  return CLI::Validator(
      [parse](std::string& value) {
        try {
          parse(value);
          return std::string();
        } catch (const ConfigError& e) {
          return std::string(e.what());
        }
      },
      "");
}

/// An option whose text the library parses: `parse(text)` reads the text and sets the value, or
/// throws ConfigError before setting anything. It runs as the option's check (its ConfigError is
/// the option's usage error, exit 2) and again when CLI11 stores the value; --help shows
/// `type_name` and `default_text`.
template <class Parse>
CLI::Option* add_parsed_option(CLI::App& app, const std::string& names, const std::string& help,
                               const std::string& type_name, const std::string& default_text, Parse parse) {
  return app.add_option_function<std::string>(names, parse, help)
      ->default_str(default_text)
      ->type_name(type_name)
      ->check(library_check(parse));
}

/// The names of an enum for --help: "{a,b,c}".
template <class Enum>
std::string enum_type_name() {
  std::string choices;
  for (const std::string& name : enum_names(Enum{}).names()) choices += (choices.empty() ? "" : ",") + name;
  return "{" + choices + "}";
}

/// An option (CLI11 names, e.g. "--type" or "--beam-size,-b") that sets an enum by name: --help
/// shows the choices and the field's current value as the default.
template <class Enum>
CLI::Option* add_enum_option(CLI::App& app, const std::string& names, Enum& field, const std::string& help) {
  return add_parsed_option(app, names, help, enum_type_name<Enum>(), name_of(field),
                           [&field](const std::string& name) { field = parse_enum<Enum>(name); });
}

/// The option --KEY of an option table bound to `field`.
template <class T>
CLI::Option* add_table_option(CLI::App& app, const OptionDoc& doc, T& field) {
  const std::string flag = std::string("--") + doc.key;
  if constexpr (std::is_enum_v<T>) {
    return add_enum_option(app, flag, field, doc.help);
  } else if constexpr (std::is_same_v<T, plot::ImageFormatChoice>) {
    // The message names the option once: CLI11 puts --KEY before it.
    return add_parsed_option(app, flag, doc.help, "FORMATS", field.text(),
                             [&field](const std::string& text) { field = plot::ImageFormatChoice::parse(text, ""); });
  } else {
    return app.add_option(flag, field, doc.help)->capture_default_str();
  }
}

}  // namespace nmt::app
