// Parameter counts and forward+backward time of one real batch (a token budget of 2000) for the
// reference model size, per attention type and decoder style. Usage:
//   bench_model TRAIN.es TRAIN.en SPM_MODEL [REPEATS]
#include <ATen/ATen.h>
#include <torch/nn/functional/loss.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include <CLI/CLI.hpp>

#include "bench/bench_util.h"
#include "nmt/data/batch.h"
#include "nmt/data/batching.h"
#include "nmt/data/parallel_corpus.h"
#include "nmt/data/tokenizer.h"
#include "nmt/model/seq2seq.h"

int main(int argc, char** argv) {
  std::string train_source, train_target, spm_model;
  int repeats = 5;
  CLI::App app{"Training step time of each attention type and decoder style."};
  app.add_option("train_source", train_source, "Training source text")->required();
  app.add_option("train_target", train_target, "Training target text")->required();
  app.add_option("spm_model", spm_model, "Joint SentencePiece model")->required();
  app.add_option("repeats", repeats, "Timed steps per model")->capture_default_str()->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  try {
    const auto tokenizer = nmt::Tokenizer::load(spm_model);
    const auto corpus = nmt::ParallelCorpus::load(train_source, train_target, tokenizer, tokenizer);
    nmt::BatchingOptions batching;
    batching.max_tokens = 2000;
    // The batch of epoch 0 with the most target tokens: a full 2000-token budget.
    const auto plan = nmt::plan_epoch(corpus, batching, 0);
    nmt::Batch batch = nmt::make_batch(corpus, plan.front());
    for (const auto& indices : plan) {
      nmt::Batch candidate = nmt::make_batch(corpus, indices);
      if (candidate.target_tokens > batch.target_tokens) batch = std::move(candidate);
    }
    std::printf("batch: %lld pairs, source [%lld, %lld], target [%lld, %lld], %lld target tokens; "
                "%d intra-op thread(s), median of %d\n",
                static_cast<long long>(batch.size()), static_cast<long long>(batch.source.size(0)),
                static_cast<long long>(batch.source.size(1)), static_cast<long long>(batch.target_in.size(0)),
                static_cast<long long>(batch.target_in.size(1)), static_cast<long long>(batch.target_tokens),
                at::get_num_threads(), repeats);
    std::printf("| attention | decoder | parameters | forward+backward ms | target tokens/s |\n");
    std::printf("| --- | --- | ---: | ---: | ---: |\n");
    for (const auto style : {nmt::DecoderStyle::bahdanau, nmt::DecoderStyle::luong}) {
      for (const auto attention : {nmt::AttentionType::bahdanau, nmt::AttentionType::dot,
                                   nmt::AttentionType::general, nmt::AttentionType::concat, nmt::AttentionType::none}) {
        nmt::ModelConfig config;  // the reference size: E = H = D = A = 256, one layer each
        config.source_vocab_size = config.target_vocab_size = tokenizer.vocab_size();
        config.attention = attention;
        config.decoder_style = style;
        at::manual_seed(1);
        nmt::Seq2Seq model(config);
        model->train();
        std::int64_t parameters = 0;
        for (const auto& p : model->parameters()) parameters += p.numel();
        std::vector<double> times;
        for (int run = 0; run <= repeats; ++run) {  // run 0 warms up
          model->zero_grad();
          nmt::bench::Stopwatch clock;
          const auto out = model->forward(batch.source, batch.source_lengths, batch.target_in);
          const auto loss = torch::nn::functional::cross_entropy(
              out.logits.reshape({-1, config.target_vocab_size}), batch.target_out.reshape(-1),
              torch::nn::functional::CrossEntropyFuncOptions().ignore_index(nmt::SpecialIds::kPad));
          loss.backward();
          if (run > 0) times.push_back(clock.seconds());
        }
        std::sort(times.begin(), times.end());
        const double median = times[times.size() / 2];
        std::printf("| %s | %s | %lld | %.0f | %.0f |\n", nmt::name_of(attention).c_str(),
                    nmt::name_of(style).c_str(), static_cast<long long>(parameters), 1000 * median,
                    static_cast<double>(batch.target_tokens) / median);
      }
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_model: %s\n", e.what());
    return 1;
  }
}
