// Training throughput (target tokens per second) of the reference configuration, trained step for
// step as nmt::Trainer trains: label-smoothed cross-entropy (0.1) over the target tokens, divided by
// them, backward, clip_grad_norm_ 1.0, Adam (lr 5e-4, betas 0.9/0.999, eps 1e-8, constant rate).
// Dropout is 0 and the seed fixed, so that scripts/reference/train_reference.py can train the same
// model from the same initial weights on the same batches and compare loss curves step for step;
// scripts/bench_train.sh runs both. Usage:
//
//   bench_train TRAIN.es TRAIN.en SPM_MODEL [options]
//     --steps N          optimizer steps, the first N batches of epoch 0 (default 30)
//     --warmup K         leading steps left out of the timing, not of the loss curve (default 2)
//     --max-tokens T     batch budget, padding included, as train.max-tokens (default 2000)
//     --seed S           torch seed for the initial weights and batching seed (default 1)
//     --checkpoint PATH  write the INITIAL weights here (nmt checkpoint) before training
//     --batches PATH     write the batches here (TorchScript archive: buffers source_i,
//                        source_lengths_i, target_in_i, target_out_i for i = 0 .. N-1)
//     --results PATH     write one TSV line per step: step tokens loss nll grad_norm seconds warmup
//     --profile          also time the sections of each step and profile the ATen operators
//     --device D         cpu (default), cuda or cuda:N; on CUDA each step ends with a device
//                        synchronisation, so that its time holds all of its kernels
//
// The model is the reference size of configs/bible-es-en.toml: E = H = D = A = 256, one layer each,
// Bahdanau attention and decoder, linear bridge, the vocabulary of SPM_MODEL; training pairs are
// filtered as the trainer does (data.max-length 100). One intra-op thread (the library default here).
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/record_function.h>
#include <torch/types.h>  // clip_grad.h needs it first
#include <torch/nn/utils/clip_grad.h>
#include <torch/cuda.h>
#include <torch/optim/adam.h>
#include <torch/serialize/output-archive.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench/bench_util.h"
#include "bench/op_profiler.h"
#include "nmt/core/allocator.h"
#include "nmt/core/device.h"
#include "nmt/data/batch.h"
#include "nmt/data/batching.h"
#include "nmt/data/parallel_corpus.h"
#include "nmt/data/tokenizer.h"
#include "nmt/model/checkpoint.h"
#include "nmt/model/seq2seq.h"
#include "nmt/train/loss.h"

namespace {

struct Options {
  std::string train_source, train_target, spm_model;
  int steps = 30;
  int warmup = 2;
  std::int64_t max_tokens = 2000;
  std::int64_t seed = 1;
  std::string checkpoint, batches, results;
  bool profile = false;
  std::string device = "cpu";
};

constexpr double kSmoothing = 0.1, kClipNorm = 1.0, kLearningRate = 5e-4;

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// The sections of one step, in seconds (filled only with --profile: it reads the clock between them).
struct Sections {
  double forward = 0, loss = 0, backward = 0, clip = 0, optimizer = 0;
};

struct StepResult {
  std::int64_t tokens = 0;
  double loss = 0;  // per target token: the value whose gradient is taken
  double nll = 0;   // per target token, without smoothing
  double grad_norm = 0;
  double seconds = 0;
  Sections sections;
};

// One optimizer step exactly as Trainer::Impl::train_step does it (accumulate = 1, no schedule).
StepResult train_step(nmt::Seq2Seq& model, torch::optim::Adam& optimizer, const nmt::Batch& batch, bool sections,
                      bool cuda) {
  StepResult r;
  r.tokens = batch.target_tokens;
  nmt::bench::Stopwatch clock, section;
  const auto lap = [&](double& into) {
    if (!sections) return;
    into = section.seconds();
    section = nmt::bench::Stopwatch();
  };
  optimizer.zero_grad();
  const auto out = model->forward(batch.source, batch.source_lengths, batch.target_in);
  lap(r.sections.forward);
  const nmt::LossSums sums = nmt::label_smoothed_cross_entropy(
      out.logits.reshape({-1, out.logits.size(-1)}), batch.target_out.reshape(-1), kSmoothing);
  r.nll = sums.nll.item<double>() / static_cast<double>(sums.tokens);
  lap(r.sections.loss);
  (sums.loss / static_cast<double>(batch.target_tokens)).backward();
  r.loss = sums.loss.item<double>() / static_cast<double>(batch.target_tokens);
  lap(r.sections.backward);
  r.grad_norm = torch::nn::utils::clip_grad_norm_(model->parameters(), kClipNorm);
  lap(r.sections.clip);
  optimizer.step();
  if (cuda) torch::cuda::synchronize();  // the step's kernels are queued, not done, until here
  lap(r.sections.optimizer);
  r.seconds = clock.seconds();
  return r;
}

// The output layer and the loss alone, forward and backward, on random readouts of the batch's shape:
// how much of a step they cost.
void time_output_and_loss(nmt::Seq2Seq& model, const nmt::Batch& batch, bool cuda) {
  const auto sync = [cuda] {
    if (cuda) torch::cuda::synchronize();
  };
  at::Tensor weight, bias;
  for (const auto& p : model->named_parameters()) {
    if (p.key() == "output.weight") weight = p.value();
    if (p.key() == "output.bias") bias = p.value();
  }
  const std::int64_t rows = batch.target_in.numel();
  const at::Tensor readout = at::rand({rows, weight.size(1)}, weight.options()).sub_(0.5).requires_grad_(true);
  std::vector<double> projection, loss_fwd, backward;
  for (int run = 0; run < 6; ++run) {
    model->zero_grad();
    nmt::bench::Stopwatch clock;
    const at::Tensor logits = at::linear(readout, weight, bias);
    sync();
    const double t1 = clock.seconds();
    const nmt::LossSums sums = nmt::label_smoothed_cross_entropy(logits, batch.target_out.reshape(-1), kSmoothing);
    sync();
    const double t2 = clock.seconds();
    (sums.loss / static_cast<double>(sums.tokens)).backward();
    sync();
    const double t3 = clock.seconds();
    if (run == 0) continue;
    projection.push_back(t1);
    loss_fwd.push_back(t2 - t1);
    backward.push_back(t3 - t2);
  }
  model->zero_grad();
  std::printf("\noutput layer + loss alone on [%lld, %lld] readouts (median of 5): projection %.1f ms, "
              "loss %.1f ms, their backward %.1f ms, together %.1f ms\n",
              static_cast<long long>(rows), static_cast<long long>(weight.size(1)), 1000 * median(projection),
              1000 * median(loss_fwd), 1000 * median(backward),
              1000 * (median(projection) + median(loss_fwd) + median(backward)));
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"Training throughput of the reference configuration, one process (scripts/bench_train.sh)."};
  app.add_option("train_source", o.train_source, "Training source text")->required();
  app.add_option("train_target", o.train_target, "Training target text")->required();
  app.add_option("spm_model", o.spm_model, "Joint SentencePiece model")->required();
  app.add_option("--steps", o.steps, "Optimizer steps on the first batches of epoch 0")->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--warmup", o.warmup, "Leading steps left out of the timing")->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-tokens", o.max_tokens, "Batch budget, padding included")->capture_default_str();
  app.add_option("--seed", o.seed, "Initial weights and batch order")->capture_default_str();
  app.add_option("--checkpoint", o.checkpoint, "Write the initial weights here (for the Python side)");
  app.add_option("--batches", o.batches, "Write the batches here (for the Python side)");
  app.add_option("--results", o.results, "Write per-step losses and times here (TSV)");
  app.add_flag("--profile", o.profile, "Also print the step sections and the operator profile");
  app.add_option("--device", o.device, "cpu, cuda or cuda:N")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (o.warmup >= o.steps) {
    std::fprintf(stderr, "bench_train: --warmup must be below --steps\n");
    return 2;
  }
  try {
    nmt::keep_freed_memory();  // as nmt-train does
    const c10::Device device = nmt::parse_device(o.device);
    const bool cuda = device.is_cuda();
    const auto tokenizer = nmt::Tokenizer::load(o.spm_model);
    nmt::CorpusFilterOptions filter;
    filter.max_length = 100;  // data.max-length of configs/bible-es-en.toml
    const auto corpus = nmt::ParallelCorpus::load(o.train_source, o.train_target, tokenizer, tokenizer, filter);
    nmt::BatchingOptions batching;
    batching.max_tokens = o.max_tokens;
    batching.seed = static_cast<std::uint64_t>(o.seed);
    const auto plan = nmt::plan_epoch(corpus, batching, 0);
    if (plan.size() < static_cast<std::size_t>(o.steps)) {
      throw std::runtime_error("epoch 0 has only " + std::to_string(plan.size()) + " batches, fewer than --steps");
    }
    std::vector<nmt::Batch> batches;
    for (int i = 0; i < o.steps; ++i) batches.push_back(nmt::make_batch(corpus, plan[static_cast<std::size_t>(i)]));
    std::vector<nmt::Batch> device_batches;  // what the steps read; the archive keeps the CPU copies
    for (const auto& b : batches) device_batches.push_back(b.to(device));

    nmt::ModelConfig config;  // the reference size: E = H = D = A = 256, one layer each, linear bridge
    config.source_vocab_size = config.target_vocab_size = tokenizer.vocab_size();
    config.attention = nmt::AttentionType::bahdanau;
    config.decoder_style = nmt::DecoderStyle::bahdanau;
    config.bridge = nmt::BridgeType::linear;
    config.dropout = 0.0;  // deterministic, so that the Python side can follow step for step
    at::manual_seed(static_cast<std::uint64_t>(o.seed));
    nmt::Seq2Seq model(config);
    model->train();
    std::int64_t parameters = 0;
    for (const auto& p : model->parameters()) parameters += p.numel();

    if (!o.checkpoint.empty()) {
      nmt::save_checkpoint(o.checkpoint, model, tokenizer, tokenizer,
                           "# bench_train: initial weights of the reference model, dropout 0, seed " +
                               std::to_string(o.seed) + "\n");
    }
    if (!o.batches.empty()) {
      torch::serialize::OutputArchive archive;
      for (std::size_t i = 0; i < batches.size(); ++i) {
        const std::string n = std::to_string(i);
        archive.write("source_" + n, batches[i].source, /*is_buffer=*/true);
        archive.write("source_lengths_" + n, batches[i].source_lengths, /*is_buffer=*/true);
        archive.write("target_in_" + n, batches[i].target_in, /*is_buffer=*/true);
        archive.write("target_out_" + n, batches[i].target_out, /*is_buffer=*/true);
      }
      archive.save_to(o.batches);
    }

    model->to(device);  // after the checkpoint: the Python side loads the same initial weights
    torch::optim::Adam optimizer(model->parameters(),
                                 torch::optim::AdamOptions(kLearningRate).betas({0.9, 0.999}).eps(1e-8));
    std::printf("bench_train (C++): %lld parameters, %d steps (%d warm-up), first batches of epoch 0 under "
                "%lld tokens, seed %lld, dropout 0, %d intra-op thread(s), device %s\n",
                static_cast<long long>(parameters), o.steps, o.warmup, static_cast<long long>(o.max_tokens),
                static_cast<long long>(o.seed), at::get_num_threads(), device.str().c_str());
    std::printf("%5s %6s %9s %7s %12s %10s %9s %9s\n", "step", "batch", "src x tgt", "tokens", "loss/token",
                "grad norm", "ms", "tokens/s");
    std::vector<StepResult> results;
    for (int i = 0; i < o.steps; ++i) {
      const nmt::Batch& b = device_batches[static_cast<std::size_t>(i)];
      results.push_back(train_step(model, optimizer, b, o.profile, cuda));
      const StepResult& r = results.back();
      std::printf("%5d %6lld %4lldx%-4lld %7lld %12.7f %10.4f %9.1f %9.0f%s\n", i + 1,
                  static_cast<long long>(b.size()), static_cast<long long>(b.source.size(1)),
                  static_cast<long long>(b.target_in.size(1)), static_cast<long long>(r.tokens), r.loss, r.grad_norm,
                  1000 * r.seconds, static_cast<double>(r.tokens) / r.seconds, i < o.warmup ? "  (warm-up)" : "");
      std::fflush(stdout);
    }

    std::vector<double> rates, ms;
    double tokens = 0, seconds = 0;
    Sections total;
    for (std::size_t i = static_cast<std::size_t>(o.warmup); i < results.size(); ++i) {
      const StepResult& r = results[i];
      rates.push_back(static_cast<double>(r.tokens) / r.seconds);
      ms.push_back(1000 * r.seconds);
      tokens += static_cast<double>(r.tokens);
      seconds += r.seconds;
      total.forward += r.sections.forward;
      total.loss += r.sections.loss;
      total.backward += r.sections.backward;
      total.clip += r.sections.clip;
      total.optimizer += r.sections.optimizer;
    }
    std::printf("C++: median %.0f target tokens/s, median step %.1f ms, overall %.0f tokens/s over %zu timed steps\n",
                median(rates), median(ms), tokens / seconds, rates.size());
    if (!o.results.empty()) {
      std::ofstream out(o.results);
      out << "step\ttokens\tloss\tnll\tgrad_norm\tseconds\twarmup\n";
      char line[256];
      for (std::size_t i = 0; i < results.size(); ++i) {
        const StepResult& r = results[i];
        std::snprintf(line, sizeof line, "%zu\t%lld\t%.9g\t%.9g\t%.9g\t%.6f\t%d\n", i + 1,
                      static_cast<long long>(r.tokens), r.loss, r.nll, r.grad_norm, r.seconds,
                      i < static_cast<std::size_t>(o.warmup) ? 1 : 0);
        out << line;
      }
      if (!out) throw std::runtime_error("cannot write " + o.results);
    }

    if (o.profile) {
      const double steps = static_cast<double>(rates.size());
      std::printf("\nsections of a timed step (mean ms): forward %.1f | loss %.1f | backward %.1f | "
                  "clip %.1f | Adam %.1f | total %.1f\n",
                  1000 * total.forward / steps, 1000 * total.loss / steps, 1000 * total.backward / steps,
                  1000 * total.clip / steps, 1000 * total.optimizer / steps, 1000 * seconds / steps);
      // Profile the timed steps' batches again (the weights move on; the shapes are what matters).
      const int profiled = std::min(o.steps - o.warmup, 5);
      nmt::bench::Stopwatch clock;
      {
        nmt::bench::OpProfiler profiler;
        for (int i = 0; i < profiled; ++i) {
          train_step(model, optimizer, device_batches[static_cast<std::size_t>(o.warmup + i)], false, cuda);
        }
      }
      nmt::bench::print_profile(nmt::bench::OpProfiler::take(), profiled, clock.seconds());
      time_output_and_loss(model, device_batches[static_cast<std::size_t>(o.warmup)], cuda);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_train: %s\n", e.what());
    return 1;
  }
}
