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

/// An option (CLI11 names, e.g. "--type" or "--beam-size,-b") that sets an enum by name: --help
/// shows the choices and the field's current value as the default.
template <class Enum>
CLI::Option* add_enum_option(CLI::App& app, const std::string& names, Enum& field, const std::string& help) {
  std::string choices;
  for (const std::string& name : enum_names(field).names()) choices += (choices.empty() ? "" : ",") + name;
  return app
      .add_option_function<std::string>(
          names, [&field](const std::string& name) { field = parse_enum<Enum>(name); }, help)
      ->default_str(name_of(field))
      ->type_name("{" + choices + "}")
      ->check(library_check([](const std::string& name) { parse_enum<Enum>(name); }));
}

/// The option --KEY of an option table bound to `field`.
template <class T>
CLI::Option* add_table_option(CLI::App& app, const OptionDoc& doc, T& field) {
  const std::string flag = std::string("--") + doc.key;
  if constexpr (std::is_enum_v<T>) {
    return add_enum_option(app, flag, field, doc.help);
  } else if constexpr (std::is_same_v<T, plot::ImageFormatChoice>) {
    const std::string key = doc.key;
    return app
        .add_option_function<std::string>(
            flag, [&field, key](const std::string& text) { field = plot::ImageFormatChoice::parse(text, key); },
            doc.help)
        ->default_str(field.text())
        ->type_name("FORMATS")
        ->check(library_check([](const std::string& text) { plot::ImageFormatChoice::parse(text, ""); }));
  } else {
    return app.add_option(flag, field, doc.help)->capture_default_str();
  }
}

}  // namespace nmt::app
