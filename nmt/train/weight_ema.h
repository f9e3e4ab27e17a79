// An exponential moving average of the weights during training (train.ema-decay, docs/training.md):
// after optimizer step t, for every parameter theta
//   shadow <- d_t * shadow + (1 - d_t) * theta,   d_t = min(decay, (1 + t) / (10 + t)),
// starting from the initial weights. The warm-up d_t (TensorFlow's ExponentialMovingAverage with
// num_updates) keeps the random initialisation from dominating the first thousands of steps. With
// decay 0 the shadow is theta (0 * s + 1 * theta: exact for finite weights, but -0 becomes +0). Validation and every saved model use
// the shadow; the raw weights go on training (and into the training state, for an exact resume).
#pragma once

#include <cstdint>

#include "nmt/model/seq2seq.h"

namespace nmt {

class WeightEma {
 public:
  /// A shadow model of `model`'s configuration on its device, holding a copy of its weights now.
  WeightEma(const Seq2Seq& model, double decay);

  /// After optimizer step `step` (1-based) of `model`: folds its weights into the shadow.
  void update(const Seq2Seq& model, std::int64_t step);
  /// The decay applied after step `step`: min(decay, (1 + step) / (10 + step)).
  double decay_at(std::int64_t step) const;

  /// The shadow weights as a model (evaluation mode; nmt's validation and save_checkpoint take it).
  Seq2Seq& shadow() { return shadow_; }
  /// On resume: the shadow takes the weights of `saved` (the checkpoint's).
  void restore(const Seq2Seq& saved);

 private:
  double decay_;
  Seq2Seq shadow_{nullptr};
};

/// Copies every parameter and buffer of `from` into `to` (same configuration; ConfigError naming
/// the first parameter that differs in name or shape).
void copy_weights(const Seq2Seq& from, Seq2Seq& to);

}  // namespace nmt
