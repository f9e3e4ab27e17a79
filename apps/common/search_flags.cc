#include "apps/common/search_flags.h"

#include <string>
#include <type_traits>

#include "apps/common/option_table.h"
#include "nmt/search/search_option_table.h"

namespace nmt::app {
namespace {

// nmt-serve's help: the table's, and what a request may do with the option.
std::string serve_help(const SearchOptionDoc& doc) {
  switch (doc.request.ceiling) {
    case RequestBounds::Ceiling::server_value:
      return std::string(doc.help) + "; a request's default and most";
    case RequestBounds::Ceiling::max_beam:
      return std::string(doc.help) + "; a request's default (at most --max-beam)";
    default:
      return std::string(doc.help) + "; a request's default";
  }
}

}  // namespace

void add_search_flags(CLI::App& app, SearchOptions& options, SearchFlags program) {
  for_each_search_option([&](const SearchOptionDoc& doc, auto member) {
    if (doc.key == nullptr || (program == SearchFlags::serve && !doc.server_default)) return;
    std::string names = std::string("--") + doc.key;
    if (doc.short_flag != nullptr) names += std::string(",") + doc.short_flag;
    const std::string help = program == SearchFlags::serve ? serve_help(doc) : doc.help;
    auto& field = options.*member;
    using Field = std::remove_reference_t<decltype(field)>;
    if constexpr (std::is_enum_v<Field>) {
      add_enum_option(app, names, field, help);
    } else if constexpr (std::is_same_v<Field, bool>) {
      app.add_flag(names, field, help);
    } else {
      add_number_option(app, names, field, help);
    }
  });
}

}  // namespace nmt::app
