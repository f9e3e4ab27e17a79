#include "nmt/translate/translator.h"

#include <ATen/ATen.h>
#include <torch/types.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <thread>

#include "nmt/core/blas_threads.h"
#include "nmt/core/error.h"
#include "nmt/core/log.h"
#include "nmt/core/thread_count.h"
#include "nmt/core/worker_pool.h"
#include "nmt/data/source_batching.h"
#include "nmt/model/attention_hardening.h"
#include "nmt/search/forced_decoding.h"
#include "nmt/search/shortlist_decoder.h"
#include "nmt/translate/source_tags.h"
#include "nmt/translate/unknown_replacement.h"

namespace nmt {
const EnumNames<LongInputPolicy>& enum_names(LongInputPolicy) {
  static const EnumNames<LongInputPolicy> names(
      "long input policy", {{LongInputPolicy::truncate, "truncate"}, {LongInputPolicy::reject, "reject"}});
  return names;
}

void TranslateOptions::validate() const {
  search.validate();
  if (max_tokens < 1) throw ConfigError("batch-tokens must be >= 1, got " + std::to_string(max_tokens));
  if (max_sentences < 0) throw ConfigError("batch-sentences must be >= 0, got " + std::to_string(max_sentences));
  if (workers < 0) throw ConfigError("workers must be >= 0 (0: one per core), got " + std::to_string(workers));
  if (workers > 0) check_thread_count(workers, "workers");
  if (max_source_length < 1) {
    throw ConfigError("max-source-length must be >= 1, got " + std::to_string(max_source_length));
  }
}

Translator::Translator(const IncrementalDecoder& model, Tokenizer source_tokenizer, Tokenizer target_tokenizer,
                       TranslateOptions options, c10::Device device)
    : model_(&model),
      source_tokenizer_(std::move(source_tokenizer)),
      target_tokenizer_(std::move(target_tokenizer)),
      options_(std::move(options)),
      device_(device) {
  options_.validate();
  options_.search.require_attention_if_used(model.has_attention());
  if (options_.search.hard_attention) {  // a model of our own whose steps attend to one state
    hardened_ = harden_attention(model);
    model_ = hardened_.get();
  }
  // The kind of model matters here once more: an ensemble whose members read the source
  // with other subword models needs each batch's text in those segmentations, which only text can
  // give (view 0's ids lose what its vocabulary lacks). Search sees the step interface only.
  const auto* ensemble = dynamic_cast<const EnsembleDecoder*>(model_);
  if (ensemble != nullptr && ensemble->source_views().size() > 0) ensemble_with_views_ = ensemble;
  if (options_.replace_unknown && !model_->has_attention()) {
    throw ConfigError("replace-unk needs attention weights, and the model has attention = none");
  }
  if (options_.shortlist && (options_.shortlist->source_vocab() != source_tokenizer_.vocab_size() ||
                             options_.shortlist->target_vocab() != model_->target_vocab_size())) {
    throw ConfigError("the shortlist has " + std::to_string(options_.shortlist->source_vocab()) + " source and " +
                      std::to_string(options_.shortlist->target_vocab()) + " target pieces, the model " +
                      std::to_string(source_tokenizer_.vocab_size()) + " and " +
                      std::to_string(model_->target_vocab_size()));
  }
  if (options_.replace_unknown) options_.search.keep_attention = true;
  source_tag_ = source_tag_id(source_tokenizer_, "");
  search_ = SearchStrategy::make(options_.search);
}

int Translator::source_tag_id(const Tokenizer& tokenizer, const std::string& view) const {
  if (options_.source_tag.empty()) return -1;
  try {
    choose_tag(tokenizer, &options_.source_tag, "");
  } catch (const ConfigError& e) {
    throw ConfigError(e.what() + view);
  }
  return tokenizer.piece_to_id(options_.source_tag);
}

std::vector<int> Translator::encode_source(const Tokenizer& tokenizer, int tag, const std::string& sentence, std::size_t line,
                                          bool* truncated, const std::string& view) const {
  std::vector<int> ids = tokenizer.encode(sentence);
  *truncated = false;
  const auto limit = static_cast<std::size_t>(options_.max_source_length);
  if (ids.size() > limit) {
    const std::string where = "input line " + std::to_string(line) + ": " + std::to_string(ids.size()) + " subwords" +
                              view + ", more than the maximum source length " + std::to_string(limit);
    if (options_.long_inputs == LongInputPolicy::reject) throw DataError(where + " (long-inputs reject)");
    log().warn("{}; translating the first {} (long-inputs truncate)", where, limit);
    ids.resize(limit);
    *truncated = true;
  }
  if (tag >= 0 && !ids.empty()) ids.insert(ids.begin(), tag);
  return ids;
}

std::vector<std::vector<std::vector<int>>> Translator::encode_further_views(const std::vector<std::string>& sentences,
                                                                            std::size_t first_line) const {
  if (ensemble_with_views_ == nullptr) return {};
  const SourceViews& views = ensemble_with_views_->source_views();
  std::vector<std::vector<std::vector<int>>> ids(views.size());
  for (std::size_t v = 1; v <= views.size(); ++v) {
    const std::string name = " in the segmentation of " + views.tokenizer(v).name();
    const int tag = source_tag_id(views.tokenizer(v), name);
    ids[v - 1].resize(sentences.size());
    for (std::size_t i = 0; i < sentences.size(); ++i) {
      bool truncated = false;
      ids[v - 1][i] = encode_source(views.tokenizer(v), tag, sentences[i], first_line + i, &truncated, name);
    }
  }
  return ids;
}

std::shared_ptr<const IncrementalDecoder> Translator::model_for_batch(
    const std::vector<std::vector<std::vector<int>>>& view_ids, const std::vector<std::size_t>& order,
    std::size_t start, std::size_t end) const {
  if (ensemble_with_views_ == nullptr) {
    return std::shared_ptr<const IncrementalDecoder>(model_, [](const IncrementalDecoder*) {});
  }
  SourceViewBatch views;
  for (const auto& ids : view_ids) {
    SourceBatch batch = make_source_batch(ids, order, start, end);
    views.sources.push_back(batch.source.to(device_));
    views.lengths.push_back(batch.lengths);
  }
  return ensemble_with_views_->for_batch(std::move(views));
}

TranslatedHypothesis Translator::finish(Hypothesis&& hypothesis, const std::vector<int>& source, bool tagged) const {
  TranslatedHypothesis out;
  out.tokens = std::move(hypothesis.tokens);
  out.score = hypothesis.score;
  out.log_prob = hypothesis.log_prob;
  out.finished = hypothesis.finished;
  out.attention = std::move(hypothesis.attention);
  out.pieces.reserve(out.tokens.size());
  for (int id : out.tokens) out.pieces.push_back(target_tokenizer_.id_to_piece(id));
  // The tag is no word of the sentence: never a piece to copy.
  const bool replaced =
      options_.replace_unknown &&
      replace_unknown_pieces(out.tokens, tagged ? out.attention.narrow(1, 1, out.attention.size(1) - 1) : out.attention,
                             tagged ? std::vector<int>(source.begin() + 1, source.end()) : source, source_tokenizer_,
                             out.pieces);
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
  const auto view_ids = encode_further_views(sentences, first_line);
  const std::vector<std::size_t> order = longest_first(lengths, /*keep_empty=*/false);
  const std::int64_t beam = options_.search.beam_size;
  // Workers need batches to share: when the budget gives fewer than four per worker, smaller
  // batches (outputs do not depend on the batch, only speed does; not below 1000 x beam tokens).
  // Two per worker left one core idle for much of the last batch: greedy search of the test books
  // (four batches for two workers) ran about 15 % faster with nine (docs/benchmarks.md).
  constexpr std::size_t kBatchesPerWorker = 4;
  const std::size_t wanted_workers = worker_count();
  std::int64_t budget = options_.max_tokens;
  if (wanted_workers > 1) {
    std::int64_t total = 0;
    for (const std::size_t i : order) total += (lengths[i] + 1) * beam;
    const auto share = total / static_cast<std::int64_t>(kBatchesPerWorker * wanted_workers);
    budget = std::min(budget, std::max(share, 1000 * beam));
  }
  const auto batches = plan_source_batches(order, lengths, budget, beam, options_.max_sentences);

  std::mutex mutex;  // guards the counters below and the progress callback
  std::size_t done = sentences.size() - order.size();  // empty lines need no search
  std::int64_t target_tokens = 0;
  const auto translate_batch = [&](std::size_t b) {
    torch::NoGradGuard no_grad_here;  // grad mode is per thread
    const auto [start, end] = batches[b];
    const SourceBatch batch = make_source_batch(ids, order, start, end);
    std::shared_ptr<const IncrementalDecoder> model = model_for_batch(view_ids, order, start, end);
    if (options_.shortlist) model = std::make_shared<ShortlistDecoder>(std::move(model), options_.shortlist);
    std::vector<std::vector<Hypothesis>> results = search_->search(*model, batch.source.to(device_), batch.lengths);
    std::int64_t tokens = 0;
    for (std::size_t r = 0; r < results.size(); ++r) {
      const std::size_t index = order[start + r];
      Translation& translation = translations[index];  // each sentence is in one batch: no race
      translation.source = ids[index];
      translation.tagged = source_tag_ >= 0 && !translation.source.empty();
      for (Hypothesis& h : results[r]) {
        translation.hypotheses.push_back(finish(std::move(h), ids[index], translation.tagged));
      }
      if (!translation.hypotheses.empty()) {
        tokens += static_cast<std::int64_t>(translation.hypotheses.front().tokens.size()) + 1;
      }
    }
    const std::lock_guard<std::mutex> lock(mutex);
    done += end - start;
    target_tokens += tokens;
    if (progress) progress(done, target_tokens);
  };

  // Batches go to the workers longest first, as they come; every batch is searched alone, so the
  // results do not depend on which worker took it or when (each product is single-threaded, and
  // a product's numbers do not depend on how many threads share it).
  const std::size_t workers = std::min(batches.size(), wanted_workers);
  std::optional<SingleThreadedBlas> single_threaded_blas;
  if (workers > 1) single_threaded_blas.emplace();
  run_in_parallel(batches.size(), workers, translate_batch);
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
  const auto view_ids = encode_further_views(sources, first_line);
  std::vector<double> scores(sources.size());
  if (tokens) tokens->assign(sources.size(), 0);
  const std::vector<std::size_t> order = longest_first(lengths, /*keep_empty=*/true);
  for (const auto& [start, end] : plan_source_batches(order, lengths, options_.max_tokens, 1, options_.max_sentences)) {
    const SourceBatch batch = make_source_batch(source_ids, order, start, end);
    std::vector<const std::vector<int>*> batch_targets;
    for (std::size_t i = start; i < end; ++i) batch_targets.push_back(&target_ids[order[i]]);
    const auto model = model_for_batch(view_ids, order, start, end);
    const at::Tensor total =
        forced_log_probs(*model, batch.source.to(device_), batch.lengths, make_target_batch(batch_targets).to(device_));
    for (std::size_t i = start; i < end; ++i) {
      const std::size_t index = order[i];
      scores[index] = static_cast<double>(total[static_cast<std::int64_t>(i - start)].item<float>());
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
