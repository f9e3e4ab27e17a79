// The search options' flags, from their one table (nmt/search/search_option_table.h): nmt-translate's
// settings, and nmt-serve's defaults of a request (the options a request starts from the server's
// setting of). Names, short flags and defaults (SearchOptions') are the table's.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "nmt/kernels/kernels.h"
#include "nmt/search/search_options.h"

namespace nmt::app {

enum class SearchFlags {
  translate,  // every option with a key
  serve,      // those a request starts from (server_default), their help saying so
};

/// Registers the flags of `program` bound to the fields of `options`, in the table's order.
void add_search_flags(CLI::App& app, SearchOptions& options, SearchFlags program);

/// --precision and --int8-products (docs/search.md, "int8 decoding"): nmt-translate's arithmetic,
/// or nmt-serve's default of a request and its int8 form.
void add_precision_flags(CLI::App& app, Precision& precision, std::string& int8_products, SearchFlags program);

}  // namespace nmt::app
