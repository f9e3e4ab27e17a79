// From a request's texts to the sentences the queue translates and back: plain texts are split into
// sentences (sentence_splitter.h), HTML texts into text runs (html_text.h) and each run into
// sentences; the translations are joined with the source's whitespace and markup. The native API
// and the LibreTranslate API both answer from this.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "nmt/serve/html_text.h"
#include "nmt/serve/sentence_splitter.h"
#include "nmt/serve/serve_options.h"
#include "nmt/serve/translation_queue.h"

namespace nmt {

/// An answer other than 200, with its message; the server writes {"error": message}.
class HttpError : public Error {
 public:
  HttpError(int status, const std::string& message) : Error(message), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

enum class TextFormat { text, html };

/// One input text, cut into sentences.
class PreparedText {
 public:
  PreparedText(const std::string& text, TextFormat format);
  /// The sentences to translate, in order.
  const std::vector<std::string>& sentences() const { return sentences_; }
  /// The text rebuilt from one translation per sentence.
  std::string join(const std::vector<std::string>& translations) const;

 private:
  TextFormat format_;
  std::vector<HtmlPiece> html_;  // HTML only
  std::vector<SplitText> runs_;  // plain: one; HTML: one per text run
  std::vector<std::string> sentences_;
};

struct SentenceResult {
  std::string source;
  Translation translation;  // hypotheses best first (none for an empty source)
};

struct TextResult {
  std::string text;                       // the best translation, joined
  std::vector<std::string> alternatives;  // whole-text alternatives from the n-best lists (n_best - 1)
  std::vector<SentenceResult> sentences;
};

/// Checks the texts against the limits (413 naming the text), translates their sentences as one
/// ticket and joins them. 503 when the queue is full or the server stops, 504 past `deadline`,
/// 499 (no answer is sent) when `client_gone` says the client left, 400 for input the search
/// refuses, 500 when the search fails. `check`, when given, sees the sentences before they are queued
/// (and may throw HttpError).
std::vector<TextResult> translate_texts(TranslationQueue& queue, const std::vector<std::string>& texts,
                                        TextFormat format, const RequestSearch& search, const ServeLimits& limits,
                                        std::chrono::steady_clock::time_point deadline,
                                        const std::function<bool()>& client_gone, std::size_t* sentence_count,
                                        const std::function<void(const std::vector<std::string>&)>& check = nullptr);

/// 400 naming `field` unless `text` is valid UTF-8 without NUL.
void check_request_text(const std::string& text, const std::string& field);

}  // namespace nmt
