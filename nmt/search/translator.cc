#include "nmt/search/translator.h"

#include <ATen/ATen.h>
#include <torch/types.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <numeric>
#include <thread>

#include "nmt/core/blas_threads.h"
#include "nmt/core/error.h"
#include "nmt/core/thread_count.h"
#include "nmt/core/log.h"
#include "nmt/search/beam_search.h"
#include "nmt/search/greedy_search.h"

namespace nmt {
namespace {

/// Source positions per batch are rounded up to a multiple of this: ATen's softmax sums a row of
/// fewer than 16 values in another order than a longer, padded one, and a sentence's attention
/// must not depend on its batch (docs/search.md, "Batch invariance").
constexpr std::int64_t kSourcePadMultiple = 16;

/// Contiguous runs of `order` (sentence indices sorted longest first) that fit the batch limits:
/// rows x longest x cost_per_row <= max_tokens (a batch holds at least one sentence) and
/// rows <= max_sentences when that is set.
std::vector<std::pair<std::size_t, std::size_t>> plan_batches(const std::vector<std::size_t>& order,
                                                              const std::vector<std::int64_t>& lengths,
                                                              std::int64_t max_tokens, std::int64_t cost_per_row,
                                                              std::int64_t max_sentences) {
  std::vector<std::pair<std::size_t, std::size_t>> batches;
  for (std::size_t start = 0; start < order.size();) {
    const std::int64_t longest = lengths[order[start]] + 1;  // EOS included
    std::size_t end = start + 1;
    while (end < order.size() && static_cast<std::int64_t>(end - start + 1) * longest * cost_per_row <= max_tokens &&
           (max_sentences <= 0 || static_cast<std::int64_t>(end - start) < max_sentences)) {
      ++end;
    }
    batches.emplace_back(start, end);
    start = end;
  }
  return batches;
}

/// Indices of the sentences with `lengths` > 0, longest first; ties keep input order.
std::vector<std::size_t> longest_first(const std::vector<std::int64_t>& lengths, bool keep_empty) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    if (keep_empty || lengths[i] > 0) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return lengths[a] > lengths[b]; });
  return order;
}

/// [rows, longest + 1 rounded up to kSourcePadMultiple] int64 of `ids[order[i]]` + EOS, padded, and their lengths [rows] (EOS included).
std::pair<at::Tensor, at::Tensor> make_source_batch(const std::vector<std::vector<int>>& ids,
                                                    const std::vector<std::size_t>& order, std::size_t start,
                                                    std::size_t end) {
  const auto rows = static_cast<std::int64_t>(end - start);
  std::int64_t longest = 0;
  for (std::size_t i = start; i < end; ++i) longest = std::max<std::int64_t>(longest, static_cast<std::int64_t>(ids[order[i]].size()));
  // Rounded up, so that a sentence's softmax over source positions sums the same way in any batch.
  const std::int64_t width = (longest + 1 + kSourcePadMultiple - 1) / kSourcePadMultiple * kSourcePadMultiple;
  at::Tensor source = at::full({rows, width}, SpecialIds::kPad, at::kLong);
  at::Tensor lengths = at::empty({rows}, at::kLong);
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto& row_ids = ids[order[start + static_cast<std::size_t>(r)]];
    auto* row = source[r].data_ptr<std::int64_t>();
    std::copy(row_ids.begin(), row_ids.end(), row);
    row[row_ids.size()] = SpecialIds::kEos;
    lengths[r] = static_cast<std::int64_t>(row_ids.size()) + 1;
  }
  return {source, lengths};
}

}  // namespace

LongInputPolicy parse_long_input_policy(const std::string& name) {
  if (name == "truncate") return LongInputPolicy::truncate;
  if (name == "reject") return LongInputPolicy::reject;
  throw ConfigError("long input policy must be truncate or reject, got '" + name + "'");
}

void TranslateOptions::validate() const {
  search.validate();
  if (max_tokens < 1) throw ConfigError("--batch-tokens must be >= 1, got " + std::to_string(max_tokens));
  if (max_sentences < 0) throw ConfigError("--batch-sentences must be >= 0, got " + std::to_string(max_sentences));
  if (workers < 0) throw ConfigError("--workers must be >= 0 (0: one per core), got " + std::to_string(workers));
  if (workers > 0) check_thread_count(workers, "--workers");
  if (max_source_length < 1) {
    throw ConfigError("--max-source-length must be >= 1, got " + std::to_string(max_source_length));
  }
}

Translator::Translator(const IncrementalDecoder& model, Tokenizer source_tokenizer, Tokenizer target_tokenizer,
                       TranslateOptions options, c10::Device device)
    : model_(model),
      source_tokenizer_(std::move(source_tokenizer)),
      target_tokenizer_(std::move(target_tokenizer)),
      options_(std::move(options)),
      device_(device) {
  if (options_.replace_unknown) options_.search.keep_attention = true;
  options_.validate();
}

std::vector<int> Translator::encode_source(const std::string& sentence, std::size_t line, bool* truncated) const {
  std::vector<int> ids = source_tokenizer_.encode(sentence);
  *truncated = false;
  const auto limit = static_cast<std::size_t>(options_.max_source_length);
  if (ids.size() > limit) {
    const std::string where = "input line " + std::to_string(line) + ": " + std::to_string(ids.size()) +
                              " subwords, more than the maximum source length " + std::to_string(limit);
    if (options_.long_inputs == LongInputPolicy::reject) throw DataError(where + " (--long-inputs reject)");
    log().warn("{}; translating the first {} (--long-inputs truncate)", where, limit);
    ids.resize(limit);
    *truncated = true;
  }
  return ids;
}

TranslatedHypothesis Translator::finish(Hypothesis&& hypothesis, const std::vector<int>& source) const {
  TranslatedHypothesis out;
  out.tokens = std::move(hypothesis.tokens);
  out.score = hypothesis.score;
  out.log_prob = hypothesis.log_prob;
  out.finished = hypothesis.finished;
  out.attention = std::move(hypothesis.attention);
  out.pieces.reserve(out.tokens.size());
  for (int id : out.tokens) out.pieces.push_back(target_tokenizer_.id_to_piece(id));
  bool replaced = false;
  if (options_.replace_unknown && !source.empty()) {
    // The source piece with the most attention at the step that produced <unk> (EOS excluded).
    for (std::size_t t = 0; t < out.tokens.size(); ++t) {
      if (out.tokens[t] != SpecialIds::kUnk) continue;
      const at::Tensor row = out.attention[static_cast<std::int64_t>(t)].slice(0, 0, static_cast<std::int64_t>(source.size()));
      const auto j = static_cast<std::size_t>(row.argmax().item<std::int64_t>());
      if (source[j] == SpecialIds::kUnk) continue;  // nothing better to copy than <unk> itself
      out.pieces[t] = source_tokenizer_.id_to_piece(source[j]);
      replaced = true;
    }
  }
  out.text = replaced ? target_tokenizer_.decode_pieces(out.pieces) : target_tokenizer_.decode(out.tokens);
  return out;
}

std::vector<Translation> Translator::translate(const std::vector<std::string>& sentences, std::size_t first_line,
                                               const TranslateProgress& progress) {
  torch::NoGradGuard no_grad;
  std::vector<Translation> translations(sentences.size());
  std::vector<std::vector<int>> ids(sentences.size());
  std::vector<std::int64_t> lengths(sentences.size());
  for (std::size_t i = 0; i < sentences.size(); ++i) {
    ids[i] = encode_source(sentences[i], first_line + i, &translations[i].truncated);
    lengths[i] = static_cast<std::int64_t>(ids[i].size());
  }
  const std::vector<std::size_t> order = longest_first(lengths, /*keep_empty=*/false);
  const std::int64_t beam = options_.search.beam_size;
  // Workers need batches to share: when the budget gives fewer than two per worker, smaller
  // batches (outputs do not depend on the batch, only speed does; not below 1000 x beam tokens).
  const std::size_t wanted_workers = worker_count();
  std::int64_t budget = options_.max_tokens;
  if (wanted_workers > 1) {
    std::int64_t total = 0;
    for (const std::size_t i : order) total += (lengths[i] + 1) * beam;
    const auto share = total / static_cast<std::int64_t>(2 * wanted_workers);
    budget = std::min(budget, std::max(share, 1000 * beam));
  }
  const auto batches = plan_batches(order, lengths, budget, beam, options_.max_sentences);

  std::mutex mutex;  // guards the counters below and the progress callback
  std::size_t done = sentences.size() - order.size();  // empty lines need no search
  std::int64_t target_tokens = 0;
  const auto translate_batch = [&](std::size_t b) {
    const auto [start, end] = batches[b];
    const auto [source, source_lengths] = make_source_batch(ids, order, start, end);
    std::vector<std::vector<Hypothesis>> results;
    if (beam == 1) {
      for (Hypothesis& h : greedy_search(model_, source.to(device_), source_lengths, options_.search)) {
        results.push_back({std::move(h)});
      }
    } else {
      results = beam_search(model_, source.to(device_), source_lengths, options_.search);
    }
    std::int64_t tokens = 0;
    for (std::size_t r = 0; r < results.size(); ++r) {
      const std::size_t index = order[start + r];
      Translation& translation = translations[index];  // each sentence is in one batch: no race
      translation.source = ids[index];
      for (Hypothesis& h : results[r]) translation.hypotheses.push_back(finish(std::move(h), ids[index]));
      if (!translation.hypotheses.empty()) {
        tokens += static_cast<std::int64_t>(translation.hypotheses.front().tokens.size()) + 1;
      }
    }
    const std::lock_guard<std::mutex> lock(mutex);
    done += end - start;
    target_tokens += tokens;
    if (progress) progress(done, target_tokens);
  };

  const std::size_t workers = std::min(batches.size(), wanted_workers);
  if (workers <= 1) {
    for (std::size_t b = 0; b < batches.size(); ++b) translate_batch(b);
    return translations;
  }
  // Batches go to the workers longest first, as they come; every batch is searched alone, so the
  // results do not depend on which worker took it or when (each product is single-threaded, and
  // a product's numbers do not depend on how many threads share it).
  const SingleThreadedBlas single_threaded_blas;
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::vector<std::thread> threads;
  for (std::size_t w = 0; w < workers; ++w) {
    threads.emplace_back([&] {
      torch::NoGradGuard worker_no_grad;  // grad mode is per thread
      try {
        for (std::size_t b = next++; b < batches.size(); b = next++) translate_batch(b);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(mutex);
        if (!failure) failure = std::current_exception();
        next = batches.size();  // the others stop after their current batch
      }
    });
  }
  for (std::thread& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
  return translations;
}

std::size_t Translator::worker_count() const {
  if (!device_.is_cpu()) return 1;  // one device, one stream: batches in turn
  if (options_.workers > 0) return static_cast<std::size_t>(options_.workers);
  return std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 4);
}

std::vector<double> Translator::score(const std::vector<std::string>& sources, const std::vector<std::string>& targets,
                                      std::size_t first_line, std::vector<std::int64_t>* tokens) {
  if (sources.size() != targets.size()) {
    throw DataError("scoring needs as many targets as sources, got " + std::to_string(targets.size()) + " and " +
                    std::to_string(sources.size()));
  }
  torch::NoGradGuard no_grad;
  std::vector<std::vector<int>> source_ids(sources.size()), target_ids(targets.size());
  std::vector<std::int64_t> lengths(sources.size());
  for (std::size_t i = 0; i < sources.size(); ++i) {
    bool truncated = false;
    source_ids[i] = encode_source(sources[i], first_line + i, &truncated);
    target_ids[i] = target_tokenizer_.encode(targets[i]);
    lengths[i] = static_cast<std::int64_t>(source_ids[i].size() + target_ids[i].size());
  }
  std::vector<double> scores(sources.size());
  if (tokens) tokens->assign(sources.size(), 0);
  const std::vector<std::size_t> order = longest_first(lengths, /*keep_empty=*/true);
  for (const auto& [start, end] : plan_batches(order, lengths, options_.max_tokens, 1, options_.max_sentences)) {
    const auto [source, source_lengths] = make_source_batch(source_ids, order, start, end);
    const auto rows = static_cast<std::int64_t>(end - start);
    std::int64_t steps = 0;  // target subwords + EOS of the longest target
    for (std::size_t i = start; i < end; ++i) steps = std::max<std::int64_t>(steps, static_cast<std::int64_t>(target_ids[order[i]].size()) + 1);
    // target [rows, steps]: y_1 .. y_m EOS, then padding; the decoder reads BOS y_1 .. y_{steps-1}.
    at::Tensor target = at::full({rows, steps}, SpecialIds::kPad, at::kLong);
    for (std::int64_t r = 0; r < rows; ++r) {
      const auto& ids = target_ids[order[start + static_cast<std::size_t>(r)]];
      auto* row = target[r].data_ptr<std::int64_t>();
      std::copy(ids.begin(), ids.end(), row);
      row[ids.size()] = SpecialIds::kEos;
    }
    target = target.to(device_);
    DecoderStatePtr state = model_.encode(source.to(device_), source_lengths);
    at::Tensor previous = at::full({rows}, SpecialIds::kBos, target.options());
    // Summed in float32 in step order, as the searches sum their scores.
    at::Tensor total = at::zeros({rows}, target.options().dtype(at::kFloat));
    for (std::int64_t t = 0; t < steps; ++t) {
      StepOutput out = model_.step(*state, previous);
      const at::Tensor y = target.select(1, t);
      const at::Tensor log_p = out.log_probs.gather(1, y.clamp_min(0).unsqueeze(1)).squeeze(1).to(at::kFloat);
      total = at::where(y.ne(SpecialIds::kPad), total + log_p, total);
      state = std::move(out.state);
      previous = y;
    }
    total = total.to(at::kCPU);
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::size_t index = order[start + static_cast<std::size_t>(r)];
      scores[index] = static_cast<double>(total[r].item<float>());
      if (tokens) (*tokens)[index] = static_cast<std::int64_t>(target_ids[index].size()) + 1;
    }
  }
  return scores;
}

std::vector<std::string> translate_greedy(const IncrementalDecoder& model, const Tokenizer& source_tokenizer,
                                          const Tokenizer& target_tokenizer, const std::vector<std::string>& sentences,
                                          TranslateOptions options, const c10::Device& device) {
  options.search.beam_size = 1;
  options.search.n_best = 1;
  Translator translator(model, source_tokenizer, target_tokenizer, std::move(options), device);
  std::vector<std::string> texts;
  texts.reserve(sentences.size());
  for (Translation& t : translator.translate(sentences)) {
    texts.push_back(t.hypotheses.empty() ? std::string() : std::move(t.hypotheses.front().text));
  }
  return texts;
}

}  // namespace nmt
