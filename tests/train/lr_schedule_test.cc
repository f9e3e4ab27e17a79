#include "nmt/train/lr_schedule.h"

#include <gtest/gtest.h>

#include <cmath>

#include "nmt/core/error.h"
#include "tests/test_util.h"

namespace nmt {
namespace {

TEST(LrSchedule, Constant) {
  ScheduleOptions options;
  options.lr = 0.01;
  const LrSchedule schedule(options);
  EXPECT_DOUBLE_EQ(schedule.rate(1), 0.01);
  EXPECT_DOUBLE_EQ(schedule.rate(100000), 0.01);
}

TEST(LrSchedule, WarmupThenInverseSquareRoot) {
  ScheduleOptions options;
  options.type = ScheduleType::warmup;
  options.lr = 1e-3;
  options.warmup_steps = 100;
  const LrSchedule schedule(options);
  EXPECT_DOUBLE_EQ(schedule.rate(1), 1e-5);     // 1e-3 * 1/100
  EXPECT_DOUBLE_EQ(schedule.rate(50), 5e-4);    // 1e-3 * 50/100
  EXPECT_DOUBLE_EQ(schedule.rate(100), 1e-3);   // the peak
  EXPECT_DOUBLE_EQ(schedule.rate(400), 5e-4);   // 1e-3 * sqrt(100/400)
  EXPECT_NEAR(schedule.rate(10000), 1e-4, 1e-15);
}

TEST(LrSchedule, PlateauDecaysAfterPatienceAndFloorsAtMinimum) {
  ScheduleOptions options;
  options.type = ScheduleType::plateau;
  options.lr = 0.1;
  options.decay = 0.5;
  options.patience = 2;
  options.min_lr = 0.03;
  LrSchedule schedule(options);
  schedule.on_validation(true);
  schedule.on_validation(false);
  EXPECT_DOUBLE_EQ(schedule.rate(10), 0.1);  // one bad validation: patience not reached
  schedule.on_validation(true);              // an improvement resets the count
  schedule.on_validation(false);
  EXPECT_DOUBLE_EQ(schedule.rate(10), 0.1);
  schedule.on_validation(false);
  EXPECT_DOUBLE_EQ(schedule.rate(10), 0.05);
  schedule.on_validation(false);
  schedule.on_validation(false);
  EXPECT_DOUBLE_EQ(schedule.rate(10), 0.03);  // 0.025 floored at min_lr

  LrSchedule restored(options);
  restored.restore_state(schedule.state_json());
  EXPECT_DOUBLE_EQ(restored.rate(10), 0.03);
  EXPECT_THROW_WITH(restored.restore_state("{}"), DataError, "schedule state");
}

TEST(LrSchedule, Validation) {
  ScheduleOptions options;
  options.lr = 0;
  EXPECT_THROW_WITH(options.validate(), ConfigError, "optim.lr");
  options.lr = 1e-3;
  options.decay = 1.5;
  EXPECT_THROW_WITH(options.validate(), ConfigError, "schedule.decay");
  options.decay = 0.5;
  options.warmup_steps = 0;
  EXPECT_THROW_WITH(options.validate(), ConfigError, "schedule.warmup-steps");
  EXPECT_THROW_WITH(parse_enum<ScheduleType>("cosine"), ConfigError, "cosine");
}

}  // namespace
}  // namespace nmt
