#include "nmt/serve/text_translation.h"

#include "nmt/data/utf8.h"

namespace nmt {

namespace {

// Code points in valid UTF-8: bytes that do not continue a sequence.
std::size_t code_points(const std::string& text) {
  std::size_t count = 0;
  for (const char c : text) count += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return count;
}

}  // namespace

void check_request_text(const std::string& text, const std::string& field) {
  const std::size_t bad = find_invalid_utf8(text);
  if (bad != std::string::npos) {
    throw HttpError(400, field + ": not valid UTF-8 (byte " + std::to_string(bad) + ")");
  }
  if (text.find('\0') != std::string::npos) throw HttpError(400, field + ": contains a NUL character");
}

PreparedText::PreparedText(const std::string& text, TextFormat format) : format_(format) {
  if (format == TextFormat::html) {
    html_ = parse_html_fragment(text);
    for (const std::string& run : html_texts(html_)) runs_.push_back(split_sentences(run));
  } else {
    runs_.push_back(split_sentences(text));
  }
  for (const SplitText& run : runs_) {
    for (const TextSegment& segment : run.segments) sentences_.push_back(segment.text);
  }
}

std::string PreparedText::join(const std::vector<std::string>& translations) const {
  std::vector<std::string> joined;
  std::size_t next = 0;
  for (const SplitText& run : runs_) {
    const std::vector<std::string> mine(translations.begin() + static_cast<std::ptrdiff_t>(next),
                                        translations.begin() + static_cast<std::ptrdiff_t>(next + run.segments.size()));
    next += run.segments.size();
    joined.push_back(join_segments(run, mine));
  }
  return format_ == TextFormat::html ? rebuild_html(html_, joined) : joined.front();
}

std::vector<TextResult> translate_texts(TranslationQueue& queue, const std::vector<std::string>& texts,
                                        TextFormat format, const RequestSearch& search, const ServeLimits& limits,
                                        std::chrono::steady_clock::time_point deadline,
                                        const std::function<bool()>& client_gone, std::size_t* sentence_count,
                                        const std::function<void(const std::vector<std::string>&)>& check) {
  if (static_cast<std::int64_t>(texts.size()) > limits.max_texts) {
    throw HttpError(413, std::to_string(texts.size()) + " texts in one request, more than the limit of " +
                             std::to_string(limits.max_texts));
  }
  std::vector<PreparedText> prepared;
  std::vector<std::string> sentences;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const std::size_t characters = code_points(texts[i]);
    if (static_cast<std::int64_t>(characters) > limits.max_characters) {
      throw HttpError(413, "text " + std::to_string(i + 1) + " has " + std::to_string(characters) +
                               " characters, more than the limit of " + std::to_string(limits.max_characters));
    }
    prepared.emplace_back(texts[i], format);
    sentences.insert(sentences.end(), prepared.back().sentences().begin(), prepared.back().sentences().end());
  }
  if (static_cast<std::int64_t>(sentences.size()) > limits.max_sentences) {
    throw HttpError(413, std::to_string(sentences.size()) + " sentences in one request, more than the limit of " +
                             std::to_string(limits.max_sentences));
  }
  if (sentence_count) *sentence_count = sentences.size();
  if (check) check(sentences);

  std::shared_ptr<TranslationTicket> ticket;
  try {
    ticket = queue.submit(sentences, search, deadline);
  } catch (const QueueFull& e) {
    throw HttpError(503, e.what());
  } catch (const ConfigError& e) {
    throw HttpError(400, e.what());
  } catch (const DataError& e) {
    throw HttpError(400, e.what());
  }
  switch (ticket->wait(client_gone)) {
    case TranslationTicket::Outcome::done: break;
    case TranslationTicket::Outcome::failed:
      queue.cancel(ticket);
      throw HttpError(ticket->error() == "the server is stopping" ? 503 : 500, ticket->error());
    case TranslationTicket::Outcome::timed_out:
      queue.cancel(ticket);
      throw HttpError(504, "the translation took longer than the time limit of " +
                               std::to_string(limits.request_timeout_s) + " s; try fewer or shorter texts");
    case TranslationTicket::Outcome::cancelled:
      queue.cancel(ticket);
      throw HttpError(499, "the client closed the connection");
  }

  std::vector<Translation>& translations = ticket->results();
  const std::size_t n_best = static_cast<std::size_t>(search.search.beam_size > 1 ? search.search.n_best : 1);
  std::vector<TextResult> results(texts.size());
  std::size_t next = 0;
  for (std::size_t t = 0; t < texts.size(); ++t) {
    const std::size_t count = prepared[t].sentences().size();
    for (std::size_t rank = 0; rank < n_best; ++rank) {
      std::vector<std::string> parts;
      for (std::size_t s = 0; s < count; ++s) {
        const auto& hypotheses = translations[next + s].hypotheses;
        // A sentence with fewer hypotheses than asked lends its last one to the later ranks.
        parts.push_back(hypotheses.empty() ? std::string() : hypotheses[std::min(rank, hypotheses.size() - 1)].text);
      }
      std::string joined = prepared[t].join(parts);
      if (rank == 0) {
        results[t].text = std::move(joined);
      } else {
        results[t].alternatives.push_back(std::move(joined));
      }
    }
    for (std::size_t s = 0; s < count; ++s) {
      results[t].sentences.push_back({prepared[t].sentences()[s], std::move(translations[next + s])});
    }
    next += count;
  }
  return results;
}

}  // namespace nmt
