// Learning-rate schedules. The schedule's state is saved with the training state, so a resumed
// run follows the same rates.
#pragma once

#include <cstdint>
#include <string>

#include "nmt/core/enum_names.h"

namespace nmt {

enum class ScheduleType {
  constant,  // lr
  plateau,   // lr, times `decay` whenever the validation metric fails to improve `patience` times in a row
  warmup,    // linear warm-up over `warmup_steps`, then inverse square root decay:
             // lr * min(step / warmup, sqrt(warmup / step))
};

const EnumNames<ScheduleType>& enum_names(ScheduleType);  // constant, plateau, warmup

struct ScheduleOptions {
  ScheduleType type = ScheduleType::constant;
  double lr = 3e-4;
  double decay = 0.5;           // plateau: factor applied on a plateau
  std::int64_t patience = 2;    // plateau: validations without improvement before decaying
  double min_lr = 1e-6;         // plateau: never below this
  std::int64_t warmup_steps = 1000;
  void validate() const;        // throws ConfigError naming the option
};

class LrSchedule {
 public:
  explicit LrSchedule(ScheduleOptions options);

  /// Rate for optimizer step `step` (1-based).
  double rate(std::int64_t step) const;
  /// Reports a validation result (`better` says whether it improved on the best so far).
  void on_validation(bool better);

  std::string state_json() const;
  void restore_state(const std::string& json);  // throws DataError

 private:
  ScheduleOptions options_;
  double plateau_lr_;
  std::int64_t bad_validations_ = 0;
};

}  // namespace nmt
