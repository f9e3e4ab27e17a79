// A step's checkpoint and training state (and best.pt), `latest`, and the step files kept.
#include "nmt/train/trainer_impl.h"

#include <set>

#include "nmt/core/log.h"
#include "nmt/train/run_checkpoints.h"

namespace nmt {

// Every rank calls it (at the same step): rank 0 gathers the ranks' generator states and writes.
void Trainer::Impl::save(bool with_best_copy) {
  state.world_size = group->size();
  if (group->communicator()) state.rank_generator_states = group->gather_generator_states();
  last_checkpoint = layout().checkpoint(state.step).string();
  if (!lead()) return;
  state.schedule_json = schedule->state_json();
  state.ema_decay = config.train.ema_decay;
  state.raw_weights.clear();
  if (ema) {
    for (const auto& p : model->named_parameters()) state.raw_weights.emplace_back(p.key(), p.value());
  }
  save_checkpoint(last_checkpoint, published_model(), *source_tokenizer, *target_tokenizer, config_text);
  save_training_state(layout().state(state.step).string(), state, *optimizer);
  run_dir->set_latest(state.step);
  if (with_best_copy) {
    save_checkpoint(layout().best().string(), published_model(), *source_tokenizer, *target_tokenizer,
                    config_text);
  }
  // Keep this run's newest keep_last step checkpoints and those of its keep_best best validations;
  // never the one `latest` names, never another run's files (RunDirectory refuses to start among them).
  const auto best = best_steps(validations, config.valid.metric, static_cast<std::size_t>(config.checkpoint.keep_best));
  run_dir->keep_last(state.step, config.checkpoint.keep_last, std::set<std::int64_t>(best.begin(), best.end()));
  log().info("saved {}", last_checkpoint);
}

}  // namespace nmt
