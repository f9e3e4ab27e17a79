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

void add_precision_flags(CLI::App& app, Precision& precision, std::string& int8_products, SearchFlags program) {
  add_enum_option(app, "--precision", precision,
                  program == SearchFlags::serve
                      ? "Requests' default arithmetic (their \"precision\" field chooses): float32, or int8 (quantized "
                        "products, faster on the CPU; docs/search.md)"
                      : "The products' arithmetic: float32, or int8 (quantized: faster on the CPU, within a few tenths "
                        "of BLEU; native engine; docs/search.md)");
  app.add_option("--int8-products", int8_products,
                 std::string(program == SearchFlags::serve ? "The products of the int8 form" : "With --precision int8, which products") +
                     ": a list of output, decoder, attention, encoder, memory, all" +
                     (program == SearchFlags::serve ? ", or none (no int8 form)" : "") +
                     "; default: the ones docs/search.md found worth their BLEU");
}

}  // namespace nmt::app
