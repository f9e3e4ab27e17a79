#include "nmt/translate/translate_stream.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "nmt/core/error.h"
#include "nmt/core/log.h"
#include "nmt/translate/translation_output.h"

namespace nmt {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Logs "N sentences, X sentences/s, Y target tokens/s" at most every `every` seconds.
class ProgressLog {
 public:
  ProgressLog(bool enabled, double every) : enabled_(enabled), every_(every), start_(Clock::now()), last_(start_) {}
  void update(std::size_t sentences, std::int64_t tokens) {
    if (!enabled_ || std::chrono::duration<double>(Clock::now() - last_).count() < every_) return;
    last_ = Clock::now();
    const double elapsed = seconds_since(start_);
    log().info("{} sentences, {:.1f} sentences/s, {:.0f} target tokens/s", sentences,
               static_cast<double>(sentences) / elapsed, static_cast<double>(tokens) / elapsed);
  }

 private:
  bool enabled_;
  double every_;
  Clock::time_point start_, last_;
};

void log_summary(const char* what, const StreamSummary& summary) {
  const double seconds = std::max(summary.seconds, 1e-9);
  log().info("{} {} sentences in {:.1f} s: {:.1f} sentences/s, {:.0f} target tokens/s", what, summary.sentences,
             summary.seconds, static_cast<double>(summary.sentences) / seconds,
             static_cast<double>(summary.target_tokens) / seconds);
}

bool read_chunk(TextLineReader& input, std::size_t lines, std::vector<std::string>& chunk) {
  chunk.clear();
  std::string line;
  while (chunk.size() < lines && input.next(line)) chunk.push_back(line);
  return !chunk.empty();
}

void check_stream(std::ostream& stream, const char* what) {
  if (!stream) throw IoError(std::string("cannot write the ") + what);
}

}  // namespace

StreamSummary translate_stream(Translator& translator, TextLineReader& input, const StreamOutputs& outputs,
                               const StreamOptions& options) {
  if (outputs.translations == nullptr) throw std::invalid_argument("translate_stream: no translation output");
  const auto start = Clock::now();
  StreamSummary summary;
  ProgressLog progress(options.progress, options.progress_seconds);
  std::vector<std::string> chunk;
  while (read_chunk(input, std::max<std::size_t>(options.chunk_lines, 1), chunk)) {
    const std::size_t first = summary.sentences;
    std::int64_t chunk_tokens = 0;
    const std::vector<Translation> translations =
        translator.translate(chunk, first + 1, [&](std::size_t done, std::int64_t tokens) {
          chunk_tokens = tokens;
          progress.update(first + done, summary.target_tokens + tokens);
        });
    std::string text, attention, alignments;
    for (std::size_t i = 0; i < translations.size(); ++i) {
      text += format_translation(translations[i], first + i, outputs.scores, outputs.n_best);
      if (outputs.attention) attention += format_attention_json(translations[i], first + i, translator.source_tokenizer());
      if (outputs.alignments) alignments += format_alignment(translations[i], translator.source_tokenizer());
    }
    outputs.translations->write(text.data(), static_cast<std::streamsize>(text.size()));
    outputs.translations->flush();
    check_stream(*outputs.translations, "translations");
    if (outputs.attention) {
      outputs.attention->write(attention.data(), static_cast<std::streamsize>(attention.size()));
      check_stream(*outputs.attention, "attention output");
    }
    if (outputs.alignments) {
      outputs.alignments->write(alignments.data(), static_cast<std::streamsize>(alignments.size()));
      check_stream(*outputs.alignments, "alignment output");
    }
    summary.sentences += chunk.size();
    summary.target_tokens += chunk_tokens;
  }
  summary.seconds = seconds_since(start);
  log_summary("translated", summary);
  return summary;
}

StreamSummary score_stream(Translator& translator, TextLineReader& sources, TextLineReader& targets,
                           std::ostream& output, const StreamOptions& options) {
  const auto start = Clock::now();
  StreamSummary summary;
  ProgressLog progress(options.progress, options.progress_seconds);
  std::vector<std::string> source_chunk, target_chunk;
  const std::size_t lines = std::max<std::size_t>(options.chunk_lines, 1);
  for (;;) {
    const bool more_sources = read_chunk(sources, lines, source_chunk);
    const bool more_targets = read_chunk(targets, lines, target_chunk);
    if (source_chunk.size() != target_chunk.size()) {
      throw DataError(sources.path() + " and " + targets.path() + " differ in length: " +
                      std::to_string(summary.sentences + source_chunk.size()) + " and " +
                      std::to_string(summary.sentences + target_chunk.size()) + " lines");
    }
    if (!more_sources && !more_targets) break;
    std::vector<std::int64_t> tokens;
    const std::vector<double> scores = translator.score(source_chunk, target_chunk, summary.sentences + 1, &tokens);
    std::string text;
    for (std::size_t i = 0; i < scores.size(); ++i) {
      char buffer[64];
      std::snprintf(buffer, sizeof buffer, "%.6f\t%lld\n", scores[i], static_cast<long long>(tokens[i]));
      text += buffer;
      summary.target_tokens += tokens[i];
    }
    output.write(text.data(), static_cast<std::streamsize>(text.size()));
    output.flush();
    check_stream(output, "scores");
    summary.sentences += scores.size();
    progress.update(summary.sentences, summary.target_tokens);
  }
  summary.seconds = seconds_since(start);
  log_summary("scored", summary);
  return summary;
}

}  // namespace nmt
