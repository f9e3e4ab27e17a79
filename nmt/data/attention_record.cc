#include "nmt/data/attention_record.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

#include "nmt/core/error.h"

namespace nmt {
namespace {

std::vector<std::string> string_array(const nlohmann::json& object, const char* field, const std::string& where) {
  if (!object.contains(field) || !object[field].is_array()) {
    throw DataError(where + ": not attention output (no \"" + field + "\" list)");
  }
  std::vector<std::string> out;
  for (const auto& item : object[field]) {
    if (!item.is_string()) throw DataError(where + ": \"" + field + "\" holds a value that is not text");
    out.push_back(item.get<std::string>());
  }
  return out;
}

void check_row_count(std::size_t rows, std::size_t targets, const std::string& where) {
  if (rows != targets) {
    throw DataError(where + ": " + std::to_string(rows) + " attention rows for " + std::to_string(targets) +
                    " target tokens");
  }
}

void check_row_size(std::size_t size, std::size_t columns, const std::string& where) {
  if (size != columns) {
    throw DataError(where + ": " + std::to_string(size) + " weights for " + std::to_string(columns) + " source tokens");
  }
}

// A row of weights: each in [0, 1], the sum 1 (within the rounding of what is written).
void check_row(const std::vector<double>& row, std::size_t columns, const std::string& where) {
  check_row_size(row.size(), columns, where);
  double sum = 0;
  for (const double w : row) {
    if (!(w >= 0 && w <= 1)) throw DataError(where + ": weight " + std::to_string(w) + " outside [0, 1]");
    sum += w;
  }
  // Weights are written rounded to 1e-6: a row of n sums to 1 within n * 5e-7.
  const double tolerance = std::max(1e-3, 6e-7 * static_cast<double>(row.size()));
  if (!(std::abs(sum - 1) <= tolerance)) throw DataError(where + ": weights sum to " + std::to_string(sum) + ", not 1");
}

std::vector<double> checked_row(const nlohmann::json& row, std::size_t columns, const std::string& where) {
  check_row_size(row.is_array() ? row.size() : 0, columns, where);
  std::vector<double> out;
  for (const auto& value : row) {
    if (!value.is_number()) throw DataError(where + ": a weight that is not a number");
    out.push_back(value.get<double>());
  }
  check_row(out, columns, where);
  return out;
}

}  // namespace

double rounded_weight(double weight) { return std::round(weight * 1e6) / 1e6; }

std::string AttentionRecord::to_json() const {
  nlohmann::json object;
  object["index"] = index;
  object["source"] = source;
  object["target"] = target;
  object["attention"] = nlohmann::json::array();
  for (const auto& row : weights) object["attention"].push_back(row);
  return object.dump();
}

AttentionRecord AttentionRecord::from_json(const std::string& line, const std::string& where) {
  nlohmann::json object;
  try {
    object = nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception&) {
    throw DataError(where + ": not a JSON object (attention output has one per line)");
  }
  if (!object.is_object()) throw DataError(where + ": not a JSON object (attention output has one per line)");
  if (!object.contains("index") || !object["index"].is_number_integer()) {
    throw DataError(where + ": not attention output (no integer \"index\")");
  }
  AttentionRecord record;
  record.index = object["index"].get<std::int64_t>();
  record.source = string_array(object, "source", where);
  record.target = string_array(object, "target", where);
  if (!object.contains("attention") || !object["attention"].is_array()) {
    throw DataError(where + ": not attention output (no \"attention\" rows)");
  }
  const auto& rows = object["attention"];
  check_row_count(rows.size(), record.target.size(), where);
  for (std::size_t t = 0; t < rows.size(); ++t) {
    record.weights.push_back(checked_row(rows[t], record.source.size(), where + ", row " + std::to_string(t + 1)));
  }
  return record;
}

void AttentionRecord::check(const std::string& where) const {
  check_row_count(weights.size(), target.size(), where);
  for (std::size_t t = 0; t < weights.size(); ++t) {
    check_row(weights[t], source.size(), where + ", row " + std::to_string(t + 1));
  }
}

std::vector<std::size_t> hard_alignment(const std::vector<std::vector<double>>& weights, std::size_t columns) {
  std::vector<std::size_t> out;
  out.reserve(weights.size());
  for (const auto& row : weights) {
    const std::size_t n = std::min(columns, row.size());
    std::size_t best = 0;
    for (std::size_t j = 1; j < n; ++j) {
      if (row[j] > row[best]) best = j;
    }
    out.push_back(best);
  }
  return out;
}

}  // namespace nmt
