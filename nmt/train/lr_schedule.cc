#include "nmt/train/lr_schedule.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

#include "nmt/core/error.h"

namespace nmt {

const EnumNames<ScheduleType>& enum_names(ScheduleType) {
  static const EnumNames<ScheduleType> names(
      "learning-rate schedule",
      {{ScheduleType::constant, "constant"}, {ScheduleType::plateau, "plateau"}, {ScheduleType::warmup, "warmup"}});
  return names;
}

void ScheduleOptions::validate() const {
  if (!(lr > 0) || !std::isfinite(lr)) throw ConfigError("optim.lr must be > 0, got " + std::to_string(lr));
  if (!(decay > 0 && decay < 1)) throw ConfigError("schedule.decay must be in (0, 1), got " + std::to_string(decay));
  if (patience < 1) throw ConfigError("schedule.patience must be >= 1, got " + std::to_string(patience));
  if (!(min_lr >= 0)) throw ConfigError("schedule.min-lr must be >= 0, got " + std::to_string(min_lr));
  if (warmup_steps < 1) throw ConfigError("schedule.warmup-steps must be >= 1, got " + std::to_string(warmup_steps));
}

LrSchedule::LrSchedule(ScheduleOptions options) : options_(options), plateau_lr_(options.lr) { options_.validate(); }

double LrSchedule::rate(std::int64_t step) const {
  switch (options_.type) {
    case ScheduleType::constant: return options_.lr;
    case ScheduleType::plateau: return plateau_lr_;
    case ScheduleType::warmup: {
      const double s = static_cast<double>(std::max<std::int64_t>(step, 1));
      const double w = static_cast<double>(options_.warmup_steps);
      return options_.lr * std::min(s / w, std::sqrt(w / s));
    }
  }
  return options_.lr;
}

void LrSchedule::on_validation(bool better) {
  if (options_.type != ScheduleType::plateau) return;
  if (better) {
    bad_validations_ = 0;
    return;
  }
  if (++bad_validations_ >= options_.patience) {
    plateau_lr_ = std::max(options_.min_lr, plateau_lr_ * options_.decay);
    bad_validations_ = 0;
  }
}

std::string LrSchedule::state_json() const {
  return nlohmann::json{{"plateau_lr", plateau_lr_}, {"bad_validations", bad_validations_}}.dump();
}

void LrSchedule::restore_state(const std::string& json) {
  try {
    const auto parsed = nlohmann::json::parse(json);
    plateau_lr_ = parsed.at("plateau_lr").get<double>();
    bad_validations_ = parsed.at("bad_validations").get<std::int64_t>();
  } catch (const nlohmann::json::exception& e) {
    throw DataError(std::string("malformed learning-rate schedule state: ") + e.what());
  }
}

}  // namespace nmt
