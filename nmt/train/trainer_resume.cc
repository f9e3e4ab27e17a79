// Resuming a run from the checkpoint and training state that its `latest` names.
#include "nmt/train/trainer_impl.h"

#include <ATen/ATen.h>

#include <filesystem>

#include "nmt/core/error.h"
#include "nmt/core/log.h"
#include "nmt/data/metrics_events.h"

namespace nmt {
namespace fs = std::filesystem;

// Rank 0 reads the checkpoint and its training state and sends their bytes to the other ranks:
// every rank restores the same parameters, optimizer moments and data position, and its own
// dropout generator (a run resumed with another number of ranks continues, with a warning).
void Trainer::Impl::resume() {
  RunDirectory::Latest latest;
  phase("reading the checkpoint to resume from", [&] {
    if (lead()) latest = run_dir->read_latest();
  });
  const std::string stem = group->from_lead(std::move(latest.stem), "sending the checkpoint");
  std::string checkpoint_bytes = group->from_lead(std::move(latest.checkpoint_bytes), "sending the checkpoint");
  std::string state_bytes = group->from_lead(std::move(latest.state_bytes), "sending the training state");
  const std::string checkpoint_path = layout().checkpoint(stem).string();
  phase("resuming from " + checkpoint_path, [&] {
    Checkpoint checkpoint = load_checkpoint_from_bytes(checkpoint_bytes, checkpoint_path, device);
    if (!(checkpoint.model->config() == model->config())) {
      throw ConfigError("cannot resume from " + checkpoint_path + ": its model config " +
                        checkpoint.model->config().to_json() + " differs from this one " + model->config().to_json());
    }
    if (checkpoint.source_tokenizer.model_bytes() != source_tokenizer->model_bytes() ||
        checkpoint.target_tokenizer.model_bytes() != target_tokenizer->model_bytes()) {
      throw ConfigError("cannot resume from " + checkpoint_path + ": its subword models differ from " +
                        config.data.source_spm);
    }
    state = load_training_state_from_bytes(state_bytes, layout().state(stem).string(), *optimizer);
    restore_weights(checkpoint, checkpoint_path);
    schedule->restore_state(state.schedule_json);
    const BatchPosition saved = state.position;
    try {
      plan_batches(&saved);  // makes the saved epoch's (possibly sampled) corpus and plan
    } catch (const DataError& e) {
      throw ConfigError("cannot resume from " + checkpoint_path +
                        ": the training data, subword sampling or batching options changed since it was written (" +
                        e.what() + ")");
    }
    group->restore_own_dropout(state, config, device, checkpoint_path);
  });
  last_checkpoint = checkpoint_path;
  if (!lead()) return;
  run_dir->adopt_steps_up_to(state.step);  // the run's earlier checkpoints are its own (keep-last)
  if (config.checkpoint.keep_best > 0) {  // the validations of the steps it still has (keep-best)
    for (const ValidEvent& v : read_metrics_events(layout().metrics().string()).valid) {
      std::error_code ec;
      if (v.step <= state.step && fs::exists(layout().checkpoint(v.step), ec)) {
        validations.emplace_back(v.step, config.valid.metric == ValidationMetric::bleu ? v.bleu : v.loss);
      }
    }
  }
  log().info("resumed from {} at step {}, epoch {}, batch {}", checkpoint_path, state.step, state.position.epoch + 1,
             state.position.batch);
}

// On resume: the model's weights are the checkpoint's, or with a moving average the training
// state's raw weights, the average (rank 0's) taking the checkpoint's.
void Trainer::Impl::restore_weights(const Checkpoint& checkpoint, const std::string& path) {
  if (state.ema_decay != config.train.ema_decay) {
    throw ConfigError(fmt::format("cannot resume from {}: its run had train.ema-decay {}, this one {}; resume with {}",
                                  path, state.ema_decay, config.train.ema_decay, state.ema_decay));
  }
  torch::NoGradGuard no_grad;
  if (!uses_ema()) {
    copy_weights(checkpoint.model, model);
    return;
  }
  auto parameters = model->named_parameters();
  if (state.raw_weights.size() != parameters.size()) {
    throw DataError(fmt::format("training state of {} holds {} raw weights for a model of {} parameters", path,
                                state.raw_weights.size(), parameters.size()));
  }
  for (const auto& [name, value] : state.raw_weights) {
    at::Tensor* p = parameters.find(name);
    if (p == nullptr || !p->sizes().equals(value.sizes())) {
      throw DataError("training state of " + path + ": raw weight " + name + " does not fit the model");
    }
    p->copy_(value);
  }
  state.raw_weights.clear();  // a whole model's copy, not needed again
  if (ema) ema->restore(checkpoint.model);
}

}  // namespace nmt
