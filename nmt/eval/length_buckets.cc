#include "nmt/eval/length_buckets.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

#include "nmt/core/decimal_number.h"
#include "nmt/core/error.h"
#include "nmt/core/text_list.h"
#include "nmt/eval/metric_helpers.h"
#include "nmt/eval/unicode_text.h"

namespace nmt {

const EnumNames<LengthOf>& enum_names(LengthOf) {
  static const EnumNames<LengthOf> names("length-of", {{LengthOf::source, "source"}, {LengthOf::reference, "reference"}});
  return names;
}

std::vector<std::int64_t> parse_length_edges(const std::string& list) {
  std::vector<std::int64_t> edges;
  for (const std::string& item : split_list(list)) {
    std::int64_t value = 0;
    try {
      value = parse_decimal_integer(item, "length-edges");
    } catch (const ConfigError&) {
      value = 0;  // refused below with the whole list
    }
    if (value < 1 || (!edges.empty() && value <= edges.back())) {
      throw ConfigError("length-edges must be increasing positive word counts separated by commas, got " + quoted_excerpt(list));
    }
    edges.push_back(value);
  }
  return edges;
}

std::string LengthBucket::label() const {
  return high < 0 ? std::to_string(low) + "+" : std::to_string(low) + "-" + std::to_string(high - 1);
}

std::vector<LengthBucket> score_by_length(const ScoringInput& input, const std::vector<std::string>& sources,
                                          const std::vector<std::int64_t>& edges, LengthOf of,
                                          const ScoringOptions& options) {
  options.validate();
  if (of == LengthOf::source && sources.size() != input.hypotheses.size()) {
    throw DataError("by source length: the source has " + std::to_string(sources.size()) + " lines, the hypotheses " +
                    std::to_string(input.hypotheses.size()));
  }
  std::vector<LengthBucket> buckets(edges.size() + 1);
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    buckets[b].low = b == 0 ? 0 : edges[b - 1];
    buckets[b].high = b < edges.size() ? edges[b] : -1;
  }
  std::vector<ScoringInput> parts(buckets.size());
  for (auto& part : parts) part.references.resize(input.references.size());
  for (std::size_t i = 0; i < input.hypotheses.size(); ++i) {
    std::string_view measured;
    if (of == LengthOf::source) {
      measured = sources[i];
    } else {
      for (const auto& stream : input.references) {
        if (!stream[i].empty()) {
          measured = stream[i];
          break;
        }
      }
    }
    const auto words = static_cast<std::int64_t>(split_whitespace(measured).size());
    std::size_t b = 0;
    while (b < edges.size() && words >= edges[b]) ++b;
    parts[b].hypotheses.push_back(input.hypotheses[i]);
    for (std::size_t r = 0; r < input.references.size(); ++r) parts[b].references[r].push_back(input.references[r][i]);
  }
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    buckets[b].sentences = parts[b].hypotheses.size();
    if (buckets[b].sentences > 0) buckets[b].scores = score_corpus(parts[b], options);
  }
  return buckets;
}

namespace {

// The score cell of `metric` in `bucket`: "-" for an empty bucket.
std::string score_cell(const LengthBucket& bucket, const std::string& metric, const ScoringOptions& options) {
  const bool has = metric == "bleu" ? bucket.scores.bleu.has_value() : bucket.scores.chrf.has_value();
  if (!has) return "-";
  return detail::fixed(metric == "bleu" ? bucket.scores.bleu->score : bucket.scores.chrf->score, options.width);
}

std::string right_aligned(const std::string& cell, std::size_t width) {
  return std::string(cell.size() < width ? width - cell.size() : 1, ' ') + cell;
}

nlohmann::ordered_json bucket_list_json(const std::vector<LengthBucket>& buckets, const ScoringOptions& options,
                                        nlohmann::ordered_json& signatures) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const LengthBucket& bucket : buckets) {
    nlohmann::ordered_json j = {{"label", bucket.label()}, {"low", bucket.low}};
    j["high"] = bucket.high < 0 ? nlohmann::ordered_json() : nlohmann::ordered_json(bucket.high);
    j["sentences"] = bucket.sentences;
    for (const auto& metric : options.metrics) {
      if (metric == "bleu") {
        j["bleu"] = bucket.scores.bleu ? nlohmann::ordered_json(detail::rounded(bucket.scores.bleu->score, options.width))
                                       : nlohmann::ordered_json();
        if (bucket.scores.bleu) signatures["bleu"] = bucket.scores.bleu->signature(options.bleu_options());
      } else {
        j["chrf"] = bucket.scores.chrf ? nlohmann::ordered_json(detail::rounded(bucket.scores.chrf->score, options.width))
                                       : nlohmann::ordered_json();
        if (bucket.scores.chrf) signatures["chrf"] = bucket.scores.chrf->signature(options.chrf_options());
      }
    }
    list.push_back(std::move(j));
  }
  return list;
}

}  // namespace

void check_same_buckets(const std::vector<SystemBuckets>& systems) {
  if (systems.empty()) throw ConfigError("no hypotheses to score by length");
  for (const SystemBuckets& system : systems) {
    bool same = system.buckets.size() == systems.front().buckets.size();
    for (std::size_t i = 0; same && i < system.buckets.size(); ++i) {
      same = system.buckets[i].low == systems.front().buckets[i].low &&
             system.buckets[i].high == systems.front().buckets[i].high &&
             system.buckets[i].sentences == systems.front().buckets[i].sentences;
    }
    if (!same) throw ConfigError("systems scored by length must share their buckets (the same lines and length-edges)");
  }
}

std::string format_length_buckets(const std::vector<LengthBucket>& buckets, LengthOf of, const ScoringOptions& options) {
  return format_length_buckets(std::vector<SystemBuckets>{{"", buckets}}, of, options);
}

std::string format_length_buckets(const std::vector<SystemBuckets>& systems, LengthOf of, const ScoringOptions& options) {
  check_same_buckets(systems);
  char header[64];
  std::snprintf(header, sizeof header, "%-18s %10s", ("words (" + name_of(of) + ")").c_str(), "sentences");
  std::string out = header;
  // One column per metric and system: "BLEU" alone, "BLEU label" when several systems compare.
  std::vector<std::size_t> widths;
  for (const auto& metric : options.metrics) {
    for (const SystemBuckets& system : systems) {
      std::string name = metric == "bleu" ? "BLEU" : "chrF2";
      if (systems.size() > 1) name += " " + system.label;
      widths.push_back(std::max<std::size_t>(11, name.size() + 2));
      out += right_aligned(name, widths.back());
    }
  }
  out += "\n";
  for (std::size_t b = 0; b < systems.front().buckets.size(); ++b) {
    char head[64];
    std::snprintf(head, sizeof head, "%-18s %10zu", systems.front().buckets[b].label().c_str(),
                  systems.front().buckets[b].sentences);
    out += head;
    std::size_t column = 0;
    for (const auto& metric : options.metrics) {
      for (const SystemBuckets& system : systems) {
        out += right_aligned(score_cell(system.buckets[b], metric, options), widths[column++]);
      }
    }
    out += "\n";
  }
  return out;
}

std::string length_buckets_json(const std::vector<LengthBucket>& buckets, LengthOf of, const ScoringOptions& options) {
  nlohmann::ordered_json json = {{"length_of", name_of(of)}};
  nlohmann::ordered_json signatures = nlohmann::ordered_json::object();
  json["buckets"] = bucket_list_json(buckets, options, signatures);
  json["signatures"] = std::move(signatures);
  return json.dump();
}

std::string length_buckets_json(const std::vector<SystemBuckets>& systems, LengthOf of, const ScoringOptions& options) {
  check_same_buckets(systems);
  if (systems.size() == 1) return length_buckets_json(systems.front().buckets, of, options);
  nlohmann::ordered_json json = {{"length_of", name_of(of)}};
  nlohmann::ordered_json signatures = nlohmann::ordered_json::object();
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const SystemBuckets& system : systems) {
    list.push_back({{"label", system.label}, {"buckets", bucket_list_json(system.buckets, options, signatures)}});
  }
  json["systems"] = std::move(list);
  json["signatures"] = std::move(signatures);
  return json.dump();
}

}  // namespace nmt
