// One optimizer step over the ranks' batches, and the steps a non-finite loss skips.
#include "nmt/train/trainer_impl.h"

#include <ATen/ATen.h>
#include <torch/types.h>  // clip_grad.h needs it first
#include <torch/nn/utils/clip_grad.h>

#include <chrono>
#include <cmath>

#include "nmt/core/error.h"
#include "nmt/core/log.h"
#include "nmt/dist/communicator.h"
#include "nmt/train/autocast.h"
#include "nmt/train/loss.h"
#include "nmt/train/optimizer.h"
#include "nmt/train/word_dropout.h"

namespace nmt {

// One optimizer step over world_size x train.accumulate consecutive batches of the epoch plan:
// every rank walks the same plan and computes the batches at positions rank, rank + world_size,
// ... of the step; gradients are summed over the ranks. The loss is normalised by the step's
// target tokens on all ranks, so W ranks take exactly the step of one process accumulating all
// W x accumulate batches, up to the order of float sums (docs/distributed.md, "Semantics").
StepOutcome Trainer::Impl::train_step(const SignalGuard& signals) {
  const int world = group->size();
  const StepShare share = batches->take_step(config.train.accumulate * world, world, group->rank());
  state.position = batches->position();
  const std::int64_t step_tokens = share.target_tokens;
  optimizer->zero_grad();
  model->set_training_step(state.step);  // the steps taken so far (a resume sets the same)
  // With dist.overlap, the gradient sum starts during the step's last backward (GradientSync::arm);
  // a rank without a batch this step has no backward to overlap and sums after it.
  const bool overlap = gradient_sync && config.dist.overlap && !share.batches.empty();
  double step_loss = 0, step_nll = 0;
  for (std::size_t i = 0; i < share.batches.size(); ++i) {
    // Word dropout keyed by the epoch the step ends in (state.position: the same on every rank and
    // after a resume) and each sentence's corpus index.
    const Batch batch =
        drop_words(share.batches[i], config.train.word_dropout, config.seed, state.position.epoch, corpus->tag_ids())
            .to(device);
    at::Tensor loss;
    {
      AutocastGuard autocast(config.train.amp);
      const auto out = model->forward(batch.source, batch.source_lengths, batch.target_in);
      const LossSums sums = label_smoothed_cross_entropy(out.logits.reshape({-1, out.logits.size(-1)}),
                                                         batch.target_out.reshape(-1), config.train.label_smoothing);
      loss = sums.loss;
      step_nll += sums.nll.item<double>();
    }
    if (overlap && i + 1 == share.batches.size()) gradient_sync->arm(*group->communicator());
    (loss / static_cast<double>(step_tokens)).backward();
    step_loss += loss.item<double>();
  }
  StepOutcome outcome;
  outcome.signal = signals.received();
  outcome.elapsed = progress->elapsed();
  const double max_norm = config.train.clip_norm > 0 ? config.train.clip_norm : INFINITY;
  if (!group->communicator()) {
    outcome.numbers.norm = torch::nn::utils::clip_grad_norm_(model->parameters(), max_norm);
  } else {
    const auto sync_start = std::chrono::steady_clock::now();
    if (overlap) {
      gradient_sync->finish();
    } else {
      gradient_sync->all_reduce(*group->communicator());
    }
    const double norm = torch::nn::utils::clip_grad_norm_(model->parameters(), INFINITY);  // measures only
    const StepAgreement agreed = group->agree_on_step(step_loss, step_nll, outcome.elapsed, outcome.signal, norm);
    step_loss = agreed.loss;
    step_nll = agreed.nll;
    outcome.elapsed = agreed.elapsed;
    outcome.signal = agreed.signal;
    outcome.numbers.norm = agreed.norm;
    progress->add_sync_seconds(std::chrono::duration<double>(std::chrono::steady_clock::now() - sync_start).count());
    scale_gradients_to_norm(model->parameters(), max_norm, agreed.norm);  // the group's norm, one factor
  }
  outcome.finite = std::isfinite(step_loss) && std::isfinite(outcome.numbers.norm);
  if (!outcome.finite) {
    optimizer->zero_grad();
    return outcome;
  }
  set_learning_rate(*optimizer, schedule->rate(state.step + 1));
  optimizer->step();
  ++state.step;
  if (ema) ema->update(model, state.step);
  state.target_tokens += step_tokens;
  outcome.numbers.loss = step_loss;
  outcome.numbers.nll = step_nll;
  outcome.numbers.tokens = step_tokens;
  return outcome;
}

// A step with a non-finite loss or gradient was skipped: too many in a row stop the run.
void Trainer::Impl::count_skipped_step(const StepOutcome& step) {
  ++state.skipped_batches;
  if (lead()) log().warn("step {}: non-finite loss or gradient norm ({}); batch skipped", state.step + 1, step.numbers.norm);
  if (++bad_in_a_row >= config.train.max_bad_batches) {
    throw Error(fmt::format("training stopped: {} batches in a row had a non-finite loss or gradient at step {};"
                            " lower optim.lr or train.clip-norm, or check the data",
                            bad_in_a_row, state.step + 1));
  }
}

}  // namespace nmt
