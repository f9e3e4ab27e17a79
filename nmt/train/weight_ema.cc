#include "nmt/train/weight_ema.h"

#include <ATen/ATen.h>
#include <torch/types.h>

#include <ATen/Context.h>

#include <algorithm>
#include <mutex>

#include "nmt/core/error.h"

namespace nmt {

void copy_weights(const Seq2Seq& from, Seq2Seq& to) {
  torch::NoGradGuard no_grad;
  const auto source = from->named_parameters(/*recurse=*/true);
  auto target = to->named_parameters(/*recurse=*/true);
  if (source.size() != target.size()) {
    throw ConfigError("cannot copy weights: " + std::to_string(source.size()) + " parameters into a model of " +
                      std::to_string(target.size()));
  }
  for (auto& item : target) {
    const at::Tensor* value = source.find(item.key());
    if (value == nullptr || !value->sizes().equals(item.value().sizes())) {
      throw ConfigError("cannot copy weights: parameter " + item.key() + " is missing or of another shape");
    }
    item.value().copy_(*value);
  }
  const auto source_buffers = from->named_buffers(true);
  for (auto& item : to->named_buffers(true)) {
    if (const at::Tensor* value = source_buffers.find(item.key())) item.value().copy_(*value);
  }
}

namespace {

// A model of `config` built without drawing from the CPU generator (its initial values are
// overwritten at once): a run's dropout and batch order must not depend on whether it keeps an
// average, so that its raw weights are those of the same run without one.
Seq2Seq untouched_generator_model(const ModelConfig& config) {
  at::Generator generator = at::globalContext().defaultGenerator(c10::Device(c10::kCPU));
  at::Tensor saved;
  {
    std::lock_guard<std::mutex> lock(generator.mutex());
    saved = generator.get_state();
  }
  Seq2Seq model(config);
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_state(saved);
  return model;
}

}  // namespace

WeightEma::WeightEma(const Seq2Seq& model, double decay)
    : decay_(decay), shadow_(untouched_generator_model(model->config())) {
  const auto parameters = model->parameters();
  if (!parameters.empty()) shadow_->to(parameters.front().device());
  copy_weights(model, shadow_);
  shadow_->eval();
  for (auto& p : shadow_->parameters()) p.set_requires_grad(false);
}

double WeightEma::decay_at(std::int64_t step) const {
  return std::min(decay_, (1.0 + static_cast<double>(step)) / (10.0 + static_cast<double>(step)));
}

void WeightEma::update(const Seq2Seq& model, std::int64_t step) {
  torch::NoGradGuard no_grad;
  const double d = decay_at(step);
  const auto raw = model->parameters();
  auto shadow = shadow_->parameters();
  for (std::size_t i = 0; i < shadow.size(); ++i) {
    // d * s + (1 - d) * theta, in the parameter's dtype; d = 0 gives theta (exactly, for a finite
    // shadow; a -0 weight becomes +0).
    shadow[i].mul_(d).add_(raw[i], 1.0 - d);
  }
}

void WeightEma::restore(const Seq2Seq& saved) { copy_weights(saved, shadow_); }

}  // namespace nmt
