// The server's batching. Every request's sentences go into one queue; search workers (threads) take
// batches from it, each batch made of the oldest sentence and the sentences of any requests queued
// after it that ask for the same search settings, and translate them with a Translator. A sentence's
// translation is the same bit for bit whatever it was batched with: the Translator is batch
// invariant (tests/translate/translator_test.cc), so batching is invisible to clients.
//
// The queue is bounded (submit() throws QueueFull beyond QueueOptions::max_queued_sentences), and a
// request that is cancelled (its client went away, or its time ran out) leaves the queue at once:
// only the batch already in a worker's hands is finished.
#pragma once

#include <c10/core/Device.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "nmt/core/blas_threads.h"
#include "nmt/core/error.h"
#include "nmt/kernels/kernels.h"
#include "nmt/translate/translator.h"

namespace nmt {

struct QueueOptions {
  /// Per batch: max_tokens, max_sentences, max_source_length, long_inputs. `workers` is ignored:
  /// each search worker translates its batch on its own thread.
  TranslateOptions translate;
  int search_workers = 0;                         // threads taking batches; 0: one per core (at most 4)
  std::int64_t max_batch_sentences = 64;          // sentences one worker takes at once
  double batch_wait_ms = 5;                       // how long the oldest sentence may wait for company
                                                  //   while another worker is searching
  bool batch_wait_always = false;                 // wait even when every other worker is idle
  std::int64_t max_queued_sentences = 1024;       // more waiting sentences: QueueFull
  void validate() const;                          // ConfigError naming the option
  /// search_workers, or one per core (at most 4); 1 off the CPU.
  std::size_t worker_count(const c10::Device& device) const;
};

/// What a request asks of the search. Sentences share a batch only when these are equal.
struct RequestSearch {
  SearchOptions search;
  bool replace_unknown = false;
  std::string tag;  // put before every source (TranslateOptions::source_tag); "": none
  Precision precision = Precision::float32;  // int8: the queue's int8 form of the model runs it
};

/// Every member equal: every search option (SearchOptions' operator==, from its table),
/// replace_unknown, the tag and the precision.
bool operator==(const RequestSearch& a, const RequestSearch& b);
inline bool operator!=(const RequestSearch& a, const RequestSearch& b) { return !(a == b); }

/// The queue holds this many sentences already.
class QueueFull : public Error {
 public:
  using Error::Error;
};

/// One request's sentences in the queue and their translations as they come back.
class TranslationTicket {
 public:
  enum class Outcome { done, failed, timed_out, cancelled };
  TranslationTicket(std::vector<std::string> sentences, std::chrono::steady_clock::time_point deadline)
      : sentences_(std::move(sentences)),
        results_(sentences_.size()),
        remaining_(sentences_.size()),
        deadline_(deadline) {}

  /// Blocks until every sentence is translated (done), a batch failed, the deadline passed, or
  /// `client_gone` (polled every `poll`) returned true. Not done: the caller cancels the ticket.
  Outcome wait(const std::function<bool()>& client_gone,
               std::chrono::milliseconds poll = std::chrono::milliseconds(50));
  /// In input order; complete after wait() returned done.
  std::vector<Translation>& results() { return results_; }
  /// The failure's message (Outcome::failed): the server stopped, or the search itself failed
  /// (submit() has checked the input and the settings).
  const std::string& error() const { return error_; }
  std::chrono::steady_clock::time_point deadline() const { return deadline_; }

 private:
  friend class TranslationQueue;
  void deliver(std::size_t index, Translation&& translation);
  void fail(const std::string& message);

  const std::vector<std::string> sentences_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Translation> results_;
  std::size_t remaining_;
  bool failed_ = false;
  std::string error_;
  std::chrono::steady_clock::time_point deadline_;
};

class TranslationQueue {
 public:
  /// Called by a worker after each batch: its sentences and how long the search took.
  using BatchObserver = std::function<void(std::size_t sentences, double seconds)>;

  /// The model (an inference form) and tokenizers as for Translator; they must outlive the queue.
  /// `int8_model`: the same model with int8 products, for requests that ask for them (null: such
  /// requests are refused). Starts the search workers.
  TranslationQueue(const IncrementalDecoder& model, Tokenizer source_tokenizer, Tokenizer target_tokenizer,
                   c10::Device device, QueueOptions options, BatchObserver on_batch = nullptr,
                   const IncrementalDecoder* int8_model = nullptr);
  ~TranslationQueue();  // stop()
  TranslationQueue(const TranslationQueue&) = delete;
  TranslationQueue& operator=(const TranslationQueue&) = delete;

  /// Checks `search` against the model (ConfigError naming the option) and, with the reject
  /// policy, the sentences' lengths (DataError naming the sentence), queues the sentences and
  /// returns their ticket; QueueFull when they do not fit. No sentences: a ticket already done.
  std::shared_ptr<TranslationTicket> submit(const std::vector<std::string>& sentences, const RequestSearch& search,
                                            std::chrono::steady_clock::time_point deadline);
  /// Takes the ticket's sentences that no worker has started out of the queue.
  void cancel(const std::shared_ptr<TranslationTicket>& ticket);
  /// Workers finish the batch in hand and end; tickets still queued fail ("the server is stopping").
  void stop();

  std::size_t queued_sentences() const;
  std::size_t worker_count() const { return workers_.size(); }

 private:
  struct Entry {
    std::shared_ptr<TranslationTicket> ticket;
    std::size_t index;  // the sentence's place in its request (ticket->sentences_)
    std::shared_ptr<const RequestSearch> search;
    std::chrono::steady_clock::time_point arrival;
  };
  // A worker's Translators, one per search settings lately seen.
  using TranslatorCache = std::vector<std::pair<RequestSearch, std::unique_ptr<Translator>>>;
  struct Batch {
    std::vector<Entry> entries;
    std::shared_ptr<const RequestSearch> search;
  };
  Batch take();  // blocks; an empty batch: stop
  void work();
  Translator& translator_for(TranslatorCache& cache, const RequestSearch& search) const;

  const IncrementalDecoder& model_;
  const IncrementalDecoder* int8_model_;  // null: no int8 form
  Tokenizer source_tokenizer_, target_tokenizer_;
  std::string hard_attention_refusal_;  // why the model cannot harden its attention; empty: it can
  c10::Device device_;
  QueueOptions options_;
  TranslateOptions batch_options_;  // what each batch's Translator starts from
  BatchObserver on_batch_;

  mutable std::mutex mutex_;
  std::condition_variable arrived_;
  std::list<Entry> queue_;
  bool stopping_ = false;
  std::size_t busy_workers_ = 0;  // workers searching a batch
  std::optional<SingleThreadedBlas> single_threaded_blas_;  // with several workers on the CPU
  std::vector<std::thread> workers_;
};

}  // namespace nmt
