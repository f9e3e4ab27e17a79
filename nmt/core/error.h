// Exceptions thrown by the library. Every message is one line that names the file, option or
// object concerned and says what is wrong; the programs print it and exit non-zero.
#pragma once

#include <exception>
#include <stdexcept>
#include <string>

namespace nmt {

/// Base of every exception the library throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An option or configuration value that is out of range or inconsistent.
class ConfigError : public Error {
 public:
  using Error::Error;
};

/// A file that cannot be opened, read or written.
class IoError : public Error {
 public:
  using Error::Error;
};

/// Input whose content is wrong: a malformed corpus, tokenizer model or checkpoint.
class DataError : public Error {
 public:
  using Error::Error;
};

/// Throws ConfigError "KEY must be RULE, got VALUE" unless `ok`: the one shape of an option check,
/// e.g. require_option(n >= 1, "train.accumulate", ">= 1", "0").
void require_option(bool ok, const std::string& key, const std::string& rule, const std::string& value);

}  // namespace nmt
