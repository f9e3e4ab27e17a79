#include "nmt/serve/translation_queue.h"

#include <ATen/Parallel.h>

#include <algorithm>

#include "nmt/core/log.h"
#include "nmt/core/torch_error.h"
#include "nmt/core/thread_count.h"
#include "nmt/model/attention_hardening.h"
#include "nmt/translate/source_tags.h"

namespace nmt {

void QueueOptions::validate() const {
  translate.validate();
  require_option(search_workers >= 0, "search-workers", ">= 0 (0: one per core)", std::to_string(search_workers));
  if (search_workers > 0) check_thread_count(search_workers, "search-workers");
  require_option(max_batch_sentences >= 1, "batch-sentences", ">= 1", std::to_string(max_batch_sentences));
  require_option(batch_wait_ms >= 0 && batch_wait_ms <= 10000, "batch-wait-ms", "in [0, 10000]",
                 std::to_string(batch_wait_ms));
  require_option(max_queued_sentences >= 1, "max-queued-sentences", ">= 1", std::to_string(max_queued_sentences));
}

std::size_t QueueOptions::worker_count(const c10::Device& device) const {
  if (!device.is_cpu()) return 1;  // one device, one stream: batches in turn
  if (search_workers > 0) return static_cast<std::size_t>(search_workers);
  return std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 4);
}

bool operator==(const RequestSearch& a, const RequestSearch& b) {
  return a.search == b.search && a.replace_unknown == b.replace_unknown && a.tag == b.tag &&
         a.precision == b.precision;
}

TranslationTicket::Outcome TranslationTicket::wait(const std::function<bool()>& client_gone,
                                                   std::chrono::milliseconds poll) {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    if (failed_) return Outcome::failed;
    if (remaining_ == 0) return Outcome::done;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline_) return Outcome::timed_out;
    if (client_gone) {
      lock.unlock();
      const bool gone = client_gone();
      lock.lock();
      if (gone) return Outcome::cancelled;
    }
    changed_.wait_until(lock, std::min(deadline_, now + poll));
  }
}

void TranslationTicket::deliver(std::size_t index, Translation&& translation) {
  const std::lock_guard<std::mutex> lock(mutex_);
  results_[index] = std::move(translation);
  if (--remaining_ == 0) changed_.notify_all();
}

void TranslationTicket::fail(const std::string& message) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (failed_) return;
  failed_ = true;
  error_ = message;
  changed_.notify_all();
}

TranslationQueue::TranslationQueue(const IncrementalDecoder& model, Tokenizer source_tokenizer,
                                   Tokenizer target_tokenizer, c10::Device device, QueueOptions options,
                                   BatchObserver on_batch, const IncrementalDecoder* int8_model)
    : model_(model),
      int8_model_(int8_model),
      source_tokenizer_(std::move(source_tokenizer)),
      target_tokenizer_(std::move(target_tokenizer)),
      device_(device),
      options_(std::move(options)),
      on_batch_(std::move(on_batch)) {
  options_.validate();
  options_.translate.workers = 1;
  batch_options_ = options_.translate;
  batch_options_.long_inputs = LongInputPolicy::truncate;  // submit() has applied reject
  // A Translator made now checks the model against the default settings before anything is served.
  Translator(model_, source_tokenizer_, target_tokenizer_, options_.translate, device_);
  if (model_.has_attention()) {  // whether a request may ask for hard attention, said once
    try {
      harden_attention(model_);
    } catch (const ConfigError& e) {
      hard_attention_refusal_ = e.what();
    }
  }
  const std::size_t count = options_.worker_count(device_);
  // Each worker's products on one core, as the Translator's own workers (core/blas_threads.h).
  if (count > 1) single_threaded_blas_.emplace();
  for (std::size_t i = 0; i < count; ++i) workers_.emplace_back([this] { work(); });
}

TranslationQueue::~TranslationQueue() { stop(); }

std::shared_ptr<TranslationTicket> TranslationQueue::submit(const std::vector<std::string>& sentences,
                                                            const RequestSearch& search,
                                                            std::chrono::steady_clock::time_point deadline) {
  search.search.validate();
  search.search.require_attention_if_used(model_.has_attention());
  if (search.replace_unknown && !model_.has_attention()) {
    throw ConfigError("replace_unk needs attention weights, and the model has attention = none");
  }
  if (search.search.hard_attention && !hard_attention_refusal_.empty()) throw ConfigError(hard_attention_refusal_);
  if (search.precision == Precision::int8 && int8_model_ == nullptr) {
    throw ConfigError("precision int8 is not offered here: it needs the native engine on the CPU");
  }
  if (!search.tag.empty()) choose_tag(source_tokenizer_, &search.tag, "");  // a tag the model lacks: its request fails
  // A sentence too long for the reject policy fails its own request here, not a shared batch.
  if (options_.translate.long_inputs == LongInputPolicy::reject) {
    const auto limit = static_cast<std::size_t>(options_.translate.max_source_length);
    for (std::size_t i = 0; i < sentences.size(); ++i) {
      const std::size_t length = source_tokenizer_.encode(sentences[i]).size();
      if (length > limit) {
        throw DataError("sentence " + std::to_string(i + 1) + " has " + std::to_string(length) +
                        " subwords, more than the maximum source length " + std::to_string(limit));
      }
    }
  }
  auto ticket = std::make_shared<TranslationTicket>(sentences, deadline);
  if (sentences.empty()) return ticket;
  auto shared_search = std::make_shared<const RequestSearch>(search);
  const auto now = std::chrono::steady_clock::now();
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) throw QueueFull("the server is stopping");
    const auto limit = static_cast<std::size_t>(options_.max_queued_sentences);
    if (queue_.size() + sentences.size() > limit) {
      throw QueueFull("the translation queue is full (" + std::to_string(queue_.size()) + " of " +
                      std::to_string(limit) + " sentences waiting); try again shortly");
    }
    for (std::size_t i = 0; i < sentences.size(); ++i) queue_.push_back({ticket, i, shared_search, now});
  }
  arrived_.notify_all();
  return ticket;
}

void TranslationQueue::cancel(const std::shared_ptr<TranslationTicket>& ticket) {
  const std::lock_guard<std::mutex> lock(mutex_);
  queue_.remove_if([&](const Entry& e) { return e.ticket == ticket; });
}

void TranslationQueue::stop() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_ && workers_.empty()) return;
    stopping_ = true;
    for (Entry& e : queue_) e.ticket->fail("the server is stopping");
    queue_.clear();
  }
  arrived_.notify_all();
  for (std::thread& worker : workers_) worker.join();
  workers_.clear();
}

std::size_t TranslationQueue::queued_sentences() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return queue_.size();
}

// The oldest sentence and, up to max_batch_sentences, every later one with its settings. When there
// are fewer than that and another worker is searching, the batch waits until the oldest has waited
// batch_wait: requests arriving meanwhile share the search (sentences of one request always arrive
// together). With every other worker idle, waiting would only add latency: a lone client's
// sentence is searched at once, and a busy server's batches grow (batch_wait_always: the classic
// rule, every batch may wait).
TranslationQueue::Batch TranslationQueue::take() {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto limit = static_cast<std::size_t>(options_.max_batch_sentences);
  for (;;) {
    if (stopping_) return {};
    if (queue_.empty()) {
      arrived_.wait(lock);
      continue;
    }
    // The pointer copied: the front entry, which holds it, is erased below.
    const std::shared_ptr<const RequestSearch> search = queue_.front().search;
    const auto same_search = [&](const Entry& e) { return e.search == search || *e.search == *search; };
    const std::size_t matching = static_cast<std::size_t>(std::count_if(queue_.begin(), queue_.end(), same_search));
    const auto ready_at = queue_.front().arrival + std::chrono::microseconds(
                                                       static_cast<std::int64_t>(options_.batch_wait_ms * 1000));
    const bool worth_waiting = busy_workers_ > 0 || options_.batch_wait_always;
    if (matching < limit && worth_waiting && std::chrono::steady_clock::now() < ready_at) {
      arrived_.wait_until(lock, ready_at);
      continue;
    }
    Batch batch;
    batch.search = search;
    for (auto it = queue_.begin(); it != queue_.end() && batch.entries.size() < limit;) {
      if (same_search(*it)) {
        batch.entries.push_back(std::move(*it));
        it = queue_.erase(it);
      } else {
        ++it;
      }
    }
    if (!queue_.empty()) arrived_.notify_one();  // another worker may start on what is left
    ++busy_workers_;
    return batch;
  }
}

Translator& TranslationQueue::translator_for(TranslatorCache& cache, const RequestSearch& search) const {
  for (auto& [settings, translator] : cache) {
    if (settings == search) return *translator;
  }
  if (cache.size() >= 16) cache.clear();  // settings come and go; a Translator is cheap to make
  TranslateOptions options = batch_options_;
  options.search = search.search;
  options.replace_unknown = search.replace_unknown;
  options.source_tag = search.tag;
  const IncrementalDecoder& model = search.precision == Precision::int8 ? *int8_model_ : model_;
  auto translator =
      std::make_unique<Translator>(model, source_tokenizer_, target_tokenizer_, std::move(options), device_);
  cache.emplace_back(search, std::move(translator));
  return *cache.back().second;
}

void TranslationQueue::work() {
  at::init_num_threads();
  TranslatorCache translators;
  // Counted before the answers go out: a client that reads /metrics after its answer sees its batch.
  const auto count_batch = [this](std::size_t sentences, std::chrono::steady_clock::time_point start) {
    if (!on_batch_) return;
    try {
      on_batch_(sentences, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    } catch (const std::exception& e) {
      log().error("counting a batch failed: {}", first_line(e));
    }
  };
  for (;;) {
    Batch batch = take();
    if (batch.entries.empty()) return;
    const auto start = std::chrono::steady_clock::now();
    try {  // nothing may escape the thread: a failure fails the batch's tickets
      std::vector<std::string> texts;
      texts.reserve(batch.entries.size());
      for (const Entry& e : batch.entries) texts.push_back(e.ticket->sentences_[e.index]);
      Translator& translator = translator_for(translators, *batch.search);
      std::vector<Translation> translations = translator.translate(texts);
      count_batch(batch.entries.size(), start);
      for (std::size_t i = 0; i < batch.entries.size(); ++i) {
        batch.entries[i].ticket->deliver(batch.entries[i].index, std::move(translations[i]));
      }
    } catch (const std::exception& e) {
      log().error("translating a batch of {} sentences failed: {}", batch.entries.size(), first_line(e));
      count_batch(batch.entries.size(), start);
      for (const Entry& entry : batch.entries) entry.ticket->fail("translation failed: " + first_line(e));
    }
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      --busy_workers_;
    }
    arrived_.notify_all();  // a worker waiting for company no longer waits behind this one
  }
}

}  // namespace nmt
