// Registers an option table's entries (OptionDoc + field, e.g. TrainConfig's for_each_option) as
// CLI11 options: the flag --KEY, which a config file sets as [section] key; the default shown by
// --help is the field's value at registration, that is the library struct's default. Enums take
// their names from the enum's table (nmt/core/enum_names.h): --help lists them, and a bad name is
// a usage error naming the option and the choices.
#pragma once

#include <CLI/CLI.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "apps/common/config_file.h"
#include "nmt/core/decimal_number.h"
#include "nmt/core/enum_names.h"
#include "nmt/core/error.h"
#include "nmt/core/option_doc.h"
#include "nmt/plot/figure.h"
#include "nmt/train/corpus_options.h"

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

/// The name of the check every numeric option carries (require_decimal_checks looks for it).
inline const char* const kDecimalCheck = "DECIMAL";

/// The check of a numeric option of type T (nmt/core/decimal_number.h): other bases, spaces and
/// values beyond T are refused naming the option and the limits, and CLI11 gets the canonical
/// decimal (it would read "010" as octal). A bad value from a config file names FILE:LINE.
template <class T>
CLI::Validator decimal_check(const std::string& key, const std::string& shown_name) {
  static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>);
  CLI::Validator check(
      [key, shown_name](std::string& text) -> std::string {
        const std::string typed = text;
        try {
          if constexpr (std::is_floating_point_v<T>) {
            const double value = parse_decimal_float(text, shown_name);
            if (std::fabs(value) > static_cast<double>(std::numeric_limits<T>::max())) {
              throw ConfigError(shown_name + ": '" + text + "' is beyond the range of this option's type (at most " +
                                std::to_string(std::numeric_limits<T>::max()) + ")");
            }
          } else if constexpr (std::is_unsigned_v<T>) {
            text = std::to_string(parse_decimal_unsigned(text, shown_name, std::numeric_limits<T>::max()));
          } else {
            text = std::to_string(parse_decimal_integer(text, shown_name, std::numeric_limits<T>::min(),
                                                        std::numeric_limits<T>::max()));
          }
          return std::string();
        } catch (const ConfigError& e) {
          // Thrown past CLI11 (which would name the option a second time); run() prints it.
          const std::string origin = config_value_origin(key, typed);
          std::string message = e.what();
          if (!origin.empty()) message = origin + ": " + key + message.substr(shown_name.size());  // FILE:LINE: train.lr ...
          throw CLI::ConfigError(message);
        }
      },
      "", kDecimalCheck);
  return check;
}

/// A numeric option (integer or floating point) bound to `field`, with its decimal check.
template <class T>
CLI::Option* add_number_option(CLI::App& app, const std::string& names, T& field, const std::string& help) {
  CLI::Option* option = app.add_option(names, field, help)->capture_default_str();
  const auto& long_names = option->get_lnames();
  const std::string key = long_names.empty() ? option->get_name() : long_names.front();  // as in a config file
  return option->transform(decimal_check<T>(key, long_names.empty() ? key : "--" + key));
}

/// Throws std::logic_error naming the first integer or float option of `app` (or its
/// subcommands) registered without add_number_option: every program calls it before parsing, so
/// a numeric option that would read CLI11's C bases fails every test of its program.
void require_decimal_checks(const CLI::App& app);

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

/// The check of one --data.corpus value: its inline table parses. A bad one from a configuration
/// file names the [[data.corpus]] table's FILE:LINE (a bad key or value was refused on its own
/// line as the file was read: SectionedToml::from_config).
inline CLI::Validator corpus_table_check(const std::string& key) {
  return CLI::Validator(
      [key](std::string& text) -> std::string {
        const std::string origin = config_value_origin(key, text);
        try {
          parse_corpus_inline_table(text, origin);
          return std::string();
        } catch (const ConfigError& e) {
          throw CLI::ConfigError(e.what());  // past CLI11, which would name the option again
        }
      },
      "");
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
  } else if constexpr (std::is_same_v<T, CorpusList>) {
    // One inline table per value, the option repeated; a configuration file's [[KEY]] tables.
    return app
        .add_option_function<std::vector<std::string>>(
            flag,
            [&field](const std::vector<std::string>& tables) {
              field.corpora.clear();
              for (const std::string& table : tables) field.corpora.push_back(parse_corpus_inline_table(table));
            },
            doc.help)
        ->type_name("TABLE")
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->check(corpus_table_check(doc.key));
  } else if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
    return add_number_option(app, flag, field, doc.help);
  } else {
    return app.add_option(flag, field, doc.help)->capture_default_str();
  }
}

}  // namespace nmt::app
