#include "nmt/data/metrics_events.h"

#include <nlohmann/json.hpp>

#include <limits>
#include <map>

#include "nmt/core/error.h"
#include "nmt/data/text_file.h"

namespace nmt {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A number of `event`; null (a non-finite value as written) is NaN; a missing one an error when
// `required`, else NaN.
double number(const nlohmann::json& event, const char* field, const std::string& where, bool required = true) {
  if (event.contains(field) && event[field].is_number()) return event[field].get<double>();
  if (event.contains(field) && event[field].is_null()) return kNaN;
  if (required) throw DataError(where + ": a " + event.value("event", "") + " event without \"" + field + "\"");
  return kNaN;
}

std::optional<std::int64_t> count(const nlohmann::json& event, const char* field) {
  if (event.contains(field) && event[field].is_number_integer()) return event[field].get<std::int64_t>();
  return std::nullopt;
}

std::int64_t step_of(const nlohmann::json& event, const std::string& where) {
  const double step = number(event, "step", where);
  if (!(step >= 0 && step < 9.2e18)) throw DataError(where + ": step " + std::to_string(step) + " is not a step");
  return static_cast<std::int64_t>(step);
}

// The fields both events have: step, epoch, target tokens, loss and perplexity.
template <class Event>
Event with_common_fields(const nlohmann::json& event, const std::string& where) {
  Event e;
  e.step = step_of(event, where);
  e.epoch = count(event, "epoch").value_or(0);
  e.target_tokens = count(event, "target_tokens");
  e.loss = number(event, "loss", where);
  e.ppl = number(event, "ppl", where);
  return e;
}

}  // namespace

std::string to_json(const TrainEvent& e) {
  nlohmann::json object{{"event", "train"}, {"step", e.step},   {"epoch", e.epoch},
                        {"loss", e.loss},   {"ppl", e.ppl},     {"lr", e.lr},
                        {"grad_norm", e.grad_norm}, {"tokens_per_s", e.tokens_per_s}, {"elapsed_s", e.elapsed_s}};
  if (e.target_tokens) object["target_tokens"] = *e.target_tokens;
  if (e.sync_s) object["sync_s"] = *e.sync_s;
  return object.dump();
}

std::string to_json(const ValidEvent& e) {
  nlohmann::json object{{"event", "valid"}, {"step", e.step}, {"epoch", e.epoch}, {"loss", e.loss},
                        {"ppl", e.ppl},     {"bleu", e.bleu}, {"best", e.best},   {"seconds", e.seconds}};
  if (e.target_tokens) object["target_tokens"] = *e.target_tokens;
  return object.dump();
}

MetricsHistory read_metrics_events(const std::string& path) {
  TextLineReader in(path);
  std::map<std::int64_t, TrainEvent> train;
  std::map<std::int64_t, ValidEvent> valid;
  MetricsHistory history;
  std::string line;
  for (;;) {
    try {
      if (!in.next(line)) break;
    } catch (const DataError&) {  // NUL bytes or bad UTF-8: what a crash can leave at a file's end
      ++history.skipped_lines;
      continue;
    }
    const std::string where = path + " line " + std::to_string(in.line_number());
    if (line.empty()) continue;
    nlohmann::json event;
    try {
      event = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception&) {
      ++history.skipped_lines;  // a run killed while writing leaves a line cut short
      continue;
    }
    if (!event.is_object() || !event.contains("event") || !event["event"].is_string()) {
      throw DataError(where + ": not a metrics event (no \"event\")");
    }
    const std::string kind = event["event"].get<std::string>();
    if (kind == "train") {
      auto e = with_common_fields<TrainEvent>(event, where);
      e.lr = number(event, "lr", where, false);
      e.grad_norm = number(event, "grad_norm", where, false);
      e.tokens_per_s = number(event, "tokens_per_s", where, false);
      e.elapsed_s = number(event, "elapsed_s", where, false);
      if (event.contains("sync_s")) e.sync_s = number(event, "sync_s", where, false);
      train[e.step] = e;  // a resumed run's repeat replaces the earlier one
    } else if (kind == "valid") {
      auto e = with_common_fields<ValidEvent>(event, where);
      e.bleu = number(event, "bleu", where, false);
      e.best = event.contains("best") && event["best"].is_boolean() && event["best"].get<bool>();
      e.seconds = number(event, "seconds", where, false);
      valid[e.step] = e;
    }
  }
  for (auto& [step, e] : train) history.train.push_back(e);
  for (auto& [step, e] : valid) history.valid.push_back(e);
  return history;
}

}  // namespace nmt
