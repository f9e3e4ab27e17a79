// The one table of the search options: per field of SearchOptions, its flag, its field in a
// /v1/translate request and in /v1/model's "defaults", its help text and how far a request may
// set it. nmt-translate and nmt-serve register their flags from it (apps/common/search_flags.h),
// nmt-serve reads requests and describes its defaults with it (nmt/serve/serve_api.h), and
// SearchOptions' operator== (the server's batch key) compares its fields: an option added here is
// in all of them at once, and an option missing here is in none.
#pragma once

#include "nmt/search/search_options.h"

namespace nmt {

/// How far a /v1/translate request may set an option; nmt/serve/serve_api.cc makes the checks.
struct RequestBounds {
  enum class Ceiling {
    none,          // a boolean or an enum: any value of its type
    fixed,         // [low, high]
    server_value,  // [low, the server's own setting]: a request may ask for less work, not more
    max_beam,      // [low, --max-beam]
    n_best,        // [low, min(the request's beam, --max-alternatives + 1)]
  };
  Ceiling ceiling = Ceiling::none;
  double low = 0;
  double high = 0;  // Ceiling::fixed only
};

struct SearchOptionDoc {
  const char* key;         // the flag --KEY; nullptr: no flag
  const char* short_flag;  // "-b", or nullptr
  const char* field;       // a request's JSON field, and the option's name in /v1/model's "defaults"
  const char* help;        // one line, for nmt-translate --help (nmt-serve adds what a request may do)
  /// A request starts from the server's setting: nmt-serve has the flag and /v1/model lists it under
  /// "defaults". false: a request starts from SearchOptions' own default, whatever the server's.
  bool server_default;
  RequestBounds request;
};

/// Calls visit(SearchOptionDoc, member) for every field of SearchOptions, `member` a pointer to it
/// (&SearchOptions::beam_size): one table serves any number of SearchOptions at once, as a
/// comparison needs. In the order of --help, which is also the order a request's fields are
/// checked in (n_best's ceiling needs the request's beam first). Fields are std::int64_t, double,
/// bool or LengthPenalty.
template <class Visitor>
void for_each_search_option(Visitor&& visit) {
  using S = SearchOptions;
  using C = RequestBounds::Ceiling;
  visit(SearchOptionDoc{"beam-size", "-b", "beam", "Beam size (1: greedy search)", true, {C::max_beam, 1}},
        &S::beam_size);
  visit(SearchOptionDoc{"n-best", nullptr, "n_best", "Hypotheses per sentence, Moses-style lines when > 1", false,
                        {C::n_best, 1}},
        &S::n_best);
  // No flag: nmt-translate keeps attention when one of its outputs needs it.
  visit(SearchOptionDoc{nullptr, nullptr, "attention", "Return each hypothesis' attention weights", false, {}},
        &S::keep_attention);
  visit(SearchOptionDoc{"length-penalty", nullptr, "length_penalty", "Length penalty (gnmt: ((5+|Y|)/6)^alpha)", true,
                        {}},
        &S::length_penalty);
  visit(SearchOptionDoc{"length-alpha", nullptr, "length_alpha", "alpha of the gnmt length penalty", true,
                        {C::fixed, 0, 10}},
        &S::length_alpha);
  visit(SearchOptionDoc{"coverage-beta", nullptr, "coverage_beta", "beta of the GNMT coverage penalty (0: off)", true,
                        {C::fixed, 0, 10}},
        &S::coverage_beta);
  visit(SearchOptionDoc{"max-length-a", nullptr, "max_length_a", "At most a*n+b target subwords for n source subwords",
                        true, {C::server_value, 0}},
        &S::max_length_a);
  visit(SearchOptionDoc{"max-length-b", nullptr, "max_length_b", "See --max-length-a", true, {C::server_value, 0}},
        &S::max_length_b);
  visit(SearchOptionDoc{"min-length", nullptr, "min_length", "No EOS before this many target subwords", true,
                        {C::fixed, 0, 1000}},
        &S::min_length);
  visit(SearchOptionDoc{"no-repeat-ngram", nullptr, "no_repeat_ngram",
                        "Never repeat an n-gram of this many subwords (0: off)", true, {C::fixed, 0, 100}},
        &S::no_repeat_ngram);
  visit(SearchOptionDoc{"hard-attention", nullptr, "hard_attention",
                        "Hard attention: the context is the one source state with the largest weight", true, {}},
        &S::hard_attention);
}

}  // namespace nmt
