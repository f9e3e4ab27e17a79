#include "nmt/train/progress_log.h"

#include <algorithm>
#include <cmath>

#include "nmt/core/log.h"
#include "nmt/train/metrics_log.h"

namespace nmt {

std::string format_duration(double seconds) {
  const auto s = static_cast<long long>(seconds);
  return fmt::format("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
}

void ProgressLog::Interval::add(const StepNumbers& step) {
  loss += step.loss;
  nll += step.nll;
  norm += step.norm;
  tokens += step.tokens;
  ++steps;
}

ProgressLog::ProgressLog(const TrainConfig& config, std::unique_ptr<MetricsLog> metrics)
    : limits_(config.train), metrics_(std::move(metrics)), clock_start_(std::chrono::steady_clock::now()) {}

ProgressLog::~ProgressLog() = default;

void ProgressLog::start(double elapsed_before, std::int64_t first_step) {
  clock_start_ = std::chrono::steady_clock::now();
  elapsed_before_ = elapsed_before;
  first_step_ = first_step;
  interval_ = Interval{};
  interval_.start = elapsed();
}

double ProgressLog::elapsed() const {
  return elapsed_before_ + std::chrono::duration<double>(std::chrono::steady_clock::now() - clock_start_).count();
}

double ProgressLog::eta(std::int64_t step, double now) const {
  double eta = -1;
  if (limits_.max_steps > 0) {
    eta = (now - elapsed_before_) / static_cast<double>(step - first_step_) *
          static_cast<double>(limits_.max_steps - step);
  }
  if (limits_.max_minutes > 0) {
    const double left = limits_.max_minutes * 60 - now;
    eta = eta < 0 ? left : std::min(eta, left);
  }
  return eta;
}

void ProgressLog::after_step(std::int64_t step, std::int64_t epoch, std::int64_t target_tokens, double lr, double now,
                             bool distributed) {
  if (step % limits_.log_every != 0) return;
  if (metrics_) {
    const double seconds = now - interval_.start, tokens = static_cast<double>(interval_.tokens);
    TrainEvent event;
    event.step = step;
    event.epoch = epoch;
    event.target_tokens = target_tokens;
    event.loss = interval_.loss / tokens;
    event.ppl = std::exp(interval_.nll / tokens);
    event.lr = lr;
    event.grad_norm = interval_.norm / static_cast<double>(interval_.steps);
    event.tokens_per_s = tokens / seconds;
    event.elapsed_s = now;
    if (distributed) event.sync_s = sync_seconds_;  // rank 0's time in the gradient sum, waits included
    const double left = eta(step, now);
    log().info("step {:>7} | epoch {:>3} | loss {:.4f} | ppl {:8.2f} | lr {:.2e} | grad norm {:6.2f} | {:6.0f} tok/s"
               " | {} elapsed | eta {}",
               step, epoch, event.loss, event.ppl, lr, event.grad_norm, event.tokens_per_s, format_duration(now),
               left < 0 ? "-" : format_duration(left));
    metrics_->write(event);
  }
  sync_seconds_ = 0;
  interval_ = Interval{};
  interval_.start = now;
}

void ProgressLog::validation(const ValidationResult& v, const ValidEvent& event) {
  if (!metrics_) return;
  log().info("validation at step {}: loss {:.4f} | ppl {:.2f} | {} | {}{:.0f} s", event.step, v.loss, v.perplexity,
             v.bleu_text, event.best ? "new best | " : "", event.seconds);
  for (std::size_t i = 0; i < v.hypotheses.size(); ++i) {
    log().info("  example {}: source     {}", i + 1, v.sources[i]);
    log().info("  example {}: reference  {}", i + 1, v.references[i]);
    log().info("  example {}: hypothesis {}", i + 1, v.hypotheses[i]);
  }
  metrics_->write(event);
}

}  // namespace nmt
