// A validation at a step: rank 0 validates, every rank draws the same conclusions; the examples'
// attention heat-maps.
#include "nmt/train/trainer_impl.h"

#include <ATen/ATen.h>

#include <chrono>
#include <cmath>

#include "nmt/core/log.h"
#include "nmt/plot/attention_heatmap.h"

namespace nmt {

// Rank 0 validates while the others wait (at most dist.timeout) for the value, from which every
// rank draws the same conclusions (best, early stopping, the plateau schedule).
bool Trainer::Impl::validate() {
  const auto start = std::chrono::steady_clock::now();
  ValidationResult v;
  at::Tensor value = at::zeros({1}, at::kDouble);
  if (lead()) {
    v = validator->run(published_model(), device);
    value.fill_(ValidationResult::metric(v, config.valid.metric));
  }
  group->from_lead({value}, "waiting for rank 0's validation at step " + std::to_string(state.step));
  const double metric = value.item<double>();
  if (!std::isfinite(metric) && lead()) {
    log().warn("validation at step {}: {} is {}, not a number to compare", state.step, name_of(config.valid.metric),
               metric);
  }
  const bool better = record_validation(metric, config.valid.metric, state);
  validations.emplace_back(state.step, metric);
  schedule->on_validation(better);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (lead()) {
    progress->validation(v, {state.step, state.position.epoch + 1, state.target_tokens, v.loss, v.perplexity, v.bleu,
                             better, seconds});
    write_attention_maps(v);
  }
  save(better);
  return config.valid.patience > 0 && state.bad_validations >= config.valid.patience;
}

// Heat-maps of the examples' attention in RUN_DIR/attention/step-N/ (N as the checkpoints number
// it). A picture that cannot be written costs a warning, never the training.
void Trainer::Impl::write_attention_maps(const ValidationResult& v) const {
  if (v.example_attention.empty()) return;
  const std::string dir = layout().attention(state.step).string();
  try {
    plot::HeatmapOptions options;
    options.name = "step " + std::to_string(state.step) + ", example";
    plot::write_attention_heatmaps(v.example_attention, dir, config.valid.attention_maps.formats, options);
  } catch (const std::exception& e) {
    log().warn("validation at step {}: no attention heat-maps in {}: {}", state.step, dir, e.what());
  }
}

}  // namespace nmt
