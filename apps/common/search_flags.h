// The search options' flags, from their one table (nmt/search/search_option_table.h): nmt-translate's
// settings, and nmt-serve's defaults of a request (the options a request starts from the server's
// setting of). Names, short flags and defaults (SearchOptions') are the table's.
#pragma once

#include <CLI/CLI.hpp>

#include "nmt/search/search_options.h"

namespace nmt::app {

enum class SearchFlags {
  translate,  // every option with a key
  serve,      // those a request starts from (server_default), their help saying so
};

/// Registers the flags of `program` bound to the fields of `options`, in the table's order.
void add_search_flags(CLI::App& app, SearchOptions& options, SearchFlags program);

}  // namespace nmt::app
