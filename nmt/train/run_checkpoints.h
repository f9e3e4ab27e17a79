// Choosing step checkpoints of a finished (or running) run directory, for averaging: its newest N,
// or its best N by the validations its metrics.jsonl records.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "nmt/train/train_config.h"

namespace nmt {

enum class RunCheckpointChoice { last, best };

/// The steps of the `count` best of `validations` (step, value) by `metric` (BLEU: highest, loss:
/// lowest; non-finite values never count; a step validated twice counts with its last value;
/// ties: the later step), best first.
std::vector<std::int64_t> best_steps(const std::vector<std::pair<std::int64_t, double>>& validations,
                                     ValidationMetric metric, std::size_t count);

/// `count` step checkpoints of `run_dir` (checkpoints/step-N.pt files that exist), oldest step first:
/// the newest, or the best by the dev `metric` recorded for their step in metrics.jsonl (BLEU:
/// highest, loss: lowest; steps without a finite value are not candidates; ties: the later step).
/// Only files the run still has count (checkpoint.keep-last removes older ones). ConfigError when
/// there are fewer than `count`, naming how many there are.
std::vector<std::string> choose_run_checkpoints(const std::string& run_dir, RunCheckpointChoice choice,
                                                std::int64_t count, ValidationMetric metric = ValidationMetric::bleu);

}  // namespace nmt
