#include "nmt/train/training_data.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <initializer_list>

#include "nmt/core/decimal_number.h"
#include "nmt/core/error.h"
#include "nmt/core/log.h"
#include "nmt/core/pending_temporaries.h"
#include "nmt/data/corpus_mixture.h"
#include "nmt/data/text_file.h"
#include "nmt/data/tsv_columns.h"

namespace nmt {
namespace fs = std::filesystem;
namespace {

// TSV corpora's columns written as text files for SentencePiece's trainer (which reads files),
// removed again when training is over or fails. A file that is there already (a user's, a symlink,
// or one a killed run left) is never written through nor removed: an error names it.
class ColumnFiles {
 public:
  ColumnFiles() = default;
  ColumnFiles(const ColumnFiles&) = delete;
  ColumnFiles& operator=(const ColumnFiles&) = delete;
  ~ColumnFiles() {
    std::error_code ignored;
    for (std::size_t i = 0; i < paths_.size(); ++i) {
      fs::remove(paths_[i], ignored);
      forget_pending_temporary(slots_[i]);
    }
  }
  /// STEM.source.tmp and STEM.target.tmp: the corpus's columns, one field a line.
  std::pair<std::string, std::string> write(const CorpusOptions& corpus, const std::string& stem) {
    const TsvColumns table = read_tsv_columns(corpus.tsv, {corpus.source_column, corpus.target_column});
    const std::string source = stem + ".source.tmp", target = stem + ".target.tmp";
    for (std::size_t side = 0; side < 2; ++side) {
      const std::string& path = side == 0 ? source : target;
      std::string text;
      for (const std::string& field : table.fields[side]) text += field + "\n";
      std::FILE* file = std::fopen(path.c_str(), "wbx");  // x: only a file this creates
      if (file == nullptr && errno == EEXIST) {
        throw IoError(path + " exists: nmt-train writes a TSV corpus's column there while it trains the subword "
                      "model (remove it if an interrupted run left it)");
      }
      if (file == nullptr) throw IoError("cannot write " + path + ": " + std::strerror(errno));
      paths_.push_back(path);  // ours now: removed at the end, or by a stop signal's handler (ExitOnSignal)
      slots_.push_back(note_pending_temporary(path));
      const bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size();
      if (std::fclose(file) != 0 || !written) throw IoError("cannot write " + path + ": " + std::strerror(errno));
    }
    return {source, target};
  }

 private:
  std::vector<std::string> paths_;
  std::vector<int> slots_;  // note_pending_temporary's, one per path
};

// Whether the subword models data.source-spm (and data.target-spm unless joint) exist already;
// otherwise nmt-train trains them on the training data.
bool subword_models_exist(const DataOptions& d) {
  return fs::exists(d.source_spm) && (d.target_spm.empty() || fs::exists(d.target_spm));
}

}  // namespace

TokenizerPair load_or_train_tokenizers(const TrainConfig& config) {
  const DataOptions& d = config.data;
  const bool joint = d.target_spm.empty();
  if (subword_models_exist(d)) {
    Tokenizer source = Tokenizer::load(d.source_spm);
    Tokenizer target = joint ? source : Tokenizer::load(d.target_spm);
    check_corpus_tags(config, source);
    return {std::move(source), std::move(target)};
  }
  log().info("subword model {} not found: training it on the training data", joint ? d.source_spm : d.target_spm);
  std::vector<std::string> sources = {d.train_source}, targets = {d.train_target};
  ColumnFiles columns;  // a TSV corpus's columns as the text files SentencePiece's trainer reads
  if (!d.corpora.empty()) {
    sources.clear();
    targets.clear();
    for (std::size_t i = 0; i < d.corpora.corpora.size(); ++i) {
      const CorpusOptions& corpus = d.corpora.corpora[i];
      if (corpus.tsv.empty()) {
        sources.push_back(corpus.source);
        targets.push_back(corpus.target);
        continue;
      }
      const auto [source, target] = columns.write(corpus, d.source_spm + ".corpus" + std::to_string(i + 1));
      sources.push_back(source);
      targets.push_back(target);
    }
  }
  TokenizerPairOptions options;
  options.joint = joint;
  options.source_model_path = d.source_spm;
  options.target_model_path = d.target_spm;
  options.common.model_type = d.spm_type;
  options.common.vocab_size = d.vocab_size;
  options.common.seed = static_cast<std::uint32_t>(config.seed);
  options.source_symbols = corpus_tags(d.corpora);
  TokenizerPair pair = train_tokenizer_pair(sources, targets, options);
  check_corpus_tags(config, pair.source);
  return pair;
}

void check_data_files(const TrainConfig& config, bool dev) {
  const DataOptions& d = config.data;
  std::vector<std::pair<std::string, std::string>> files;  // (what, path)
  if (d.corpora.empty()) {
    files = {{"data.train-source", d.train_source}, {"data.train-target", d.train_target}};
  }
  for (std::size_t i = 0; i < d.corpora.corpora.size(); ++i) {
    const CorpusOptions& corpus = d.corpora.corpora[i];
    for (const std::string* path : {&corpus.source, &corpus.target, &corpus.tsv}) {
      if (!path->empty()) files.emplace_back(corpus_name(d.corpora, i), *path);
    }
  }
  const std::size_t training_files = files.size();
  if (dev) {
    files.emplace_back("data.dev-source", d.dev_source);
    files.emplace_back("data.dev-target", d.dev_target);
  }
  for (const auto& [what, path] : files) {
    std::FILE* file = std::fopen(path.c_str(), "rb");  // fopen sets errno, std::ifstream need not
    if (file == nullptr) throw IoError(what + ": cannot open " + path + ": " + std::strerror(errno));
    std::fclose(file);
  }
  // Training a subword model reads the training data once before the training does: a file that
  // can be read once only (a FIFO, `<(zcat train.es.gz)`) would then load as empty.
  const bool trains_subwords = config.init_from.empty() && !subword_models_exist(d);
  for (std::size_t i = 0; trains_subwords && i < training_files; ++i) {
    const auto& [what, path] = files[i];
    std::error_code error;
    if (!fs::is_regular_file(path, error)) {
      throw ConfigError(what + ": " + path + " is not a regular file (a pipe?), and nmt-train reads the training "
                        "data twice when it trains the subword model " +
                        (d.target_spm.empty() ? d.source_spm : d.target_spm) +
                        ": give a file, or a subword model that exists (data.source-spm)");
    }
  }
  // Then their shape, read through once: sides of one length, TSV rows of the header's width,
  // valid UTF-8. Loading checks the same, but only after the subword models are trained. A file
  // that can be read once only (a FIFO, `<(zcat corpus.gz)`) is left to the loading.
  const auto named = [](const std::string& what, const std::function<void()>& check,
                        std::initializer_list<std::string> paths) {
    for (const std::string& path : paths) {
      std::error_code error;
      if (!fs::is_regular_file(path, error)) return;
    }
    try {
      check();
    } catch (const ConfigError& e) {
      throw ConfigError(what + ": " + e.what());
    } catch (const DataError& e) {
      throw DataError(what + ": " + e.what());
    }
  };
  if (d.corpora.empty()) {
    named("data.train-source/-target", [&] { check_parallel_files(d.train_source, d.train_target); },
          {d.train_source, d.train_target});
  }
  for (std::size_t i = 0; i < d.corpora.corpora.size(); ++i) {
    const CorpusOptions& corpus = d.corpora.corpora[i];
    if (corpus.tsv.empty()) {
      named(corpus_name(d.corpora, i), [&] { check_parallel_files(corpus.source, corpus.target); },
            {corpus.source, corpus.target});
    } else {
      named(corpus_name(d.corpora, i),
            [&] { check_tsv_columns(corpus.tsv, {corpus.source_column, corpus.target_column}); }, {corpus.tsv});
    }
  }
  if (dev) {
    named("data.dev-source/-target", [&] { check_parallel_files(d.dev_source, d.dev_target); },
          {d.dev_source, d.dev_target});
  }
}

void check_corpus_tags(const TrainConfig& config, const Tokenizer& source_tokenizer) {
  for (const std::string& tag : corpus_tags(config.data.corpora)) {
    const int id = source_tokenizer.piece_to_id(tag);
    if (!source_tokenizer.is_user_defined(id)) {
      throw ConfigError("data.corpus: tag " + quoted_excerpt(tag) + " is " +
                        (id == SpecialIds::kUnk ? std::string("not a piece") : "an ordinary piece") + " of " +
                        source_tokenizer.name() +
                        ", not a user-defined symbol: SentencePiece would split or join it with the text after it "
                        "(let nmt-train train the subword model: give a data.source-spm that does not exist yet; or "
                        "nmt-tokenizer train --user-defined-symbols)");
    }
  }
}

namespace {

// The text of the pairs `corpus` kept from a TSV's columns, for subword sampling.
void kept_tsv_texts(const ParallelCorpus& corpus, const TsvColumns& table, std::vector<std::string>& source_texts,
                    std::vector<std::string>& target_texts) {
  std::size_t next = 0;
  for (std::size_t r = 0; r < table.lines.size() && next < corpus.size(); ++r) {
    if (table.lines[r] != corpus.line_number(next)) continue;
    source_texts.push_back(table.fields[0][r]);
    target_texts.push_back(table.fields[1][r]);
    ++next;
  }
}

// The text of the pairs `corpus` kept from its files, for subword sampling.
void read_kept_texts(const ParallelCorpus& corpus, const std::string& source_path, const std::string& target_path,
                     std::vector<std::string>& source_texts, std::vector<std::string>& target_texts) {
  TextLineReader sources(source_path), targets(target_path);
  std::string source, target;
  std::size_t next = 0;
  while (next < corpus.size() && sources.next(source) && targets.next(target)) {
    if (sources.line_number() == corpus.line_number(next)) {
      source_texts.push_back(source);
      target_texts.push_back(target);
      ++next;
    }
  }
}

}  // namespace

TrainingCorpus::TrainingCorpus(const TrainConfig& config, const Tokenizer& source_tokenizer,
                               const Tokenizer& target_tokenizer)
    : config_(config), source_tokenizer_(source_tokenizer), target_tokenizer_(target_tokenizer) {
  if (!config.data.corpora.empty()) {
    check_corpus_tags(config, source_tokenizer);
    std::vector<std::vector<int>> sources, targets;
    for (std::size_t i = 0; i < config.data.corpora.corpora.size(); ++i) load_corpus(i, sources, targets);
    corpus_ = std::make_unique<ParallelCorpus>(ParallelCorpus::from_sequences(sources, targets));
    for (const std::string& tag : corpus_tags(config.data.corpora)) tag_ids_.push_back(source_tokenizer.piece_to_id(tag));
    log().info("training data: {} pairs in {} streams; {} + {} subwords", corpus_->size(), streams_.size(),
               corpus_->source_tokens(), corpus_->target_tokens());
    return;
  }
  CorpusFilterOptions filter;
  filter.max_length = config.data.max_length;
  filter.max_length_ratio = config.data.max_length_ratio;
  corpus_ = std::make_unique<ParallelCorpus>(ParallelCorpus::load(config.data.train_source, config.data.train_target,
                                                                  source_tokenizer, target_tokenizer, filter));
  const CorpusCounts& c = corpus_->counts();
  log().info("training data: {} pairs kept of {} ({} empty, {} too long, {} bad length ratio); {} + {} subwords",
             c.kept, c.lines, c.empty, c.too_long, c.bad_ratio, corpus_->source_tokens(), corpus_->target_tokens());
  if (corpus_->size() == 0) throw DataError("no training pairs left in " + config.data.train_source + " after filtering");
  Stream all;
  all.size = corpus_->size();
  // Subword sampling re-segments the kept pairs every epoch: keep their text.
  if (config.train.sampling_alpha > 0) {
    read_kept_texts(*corpus_, config.data.train_source, config.data.train_target, all.source_texts, all.target_texts);
  }
  streams_.push_back(std::move(all));
}

void TrainingCorpus::load_corpus(std::size_t index, std::vector<std::vector<int>>& sources,
                                 std::vector<std::vector<int>>& targets) {
  const CorpusOptions& options = config_.data.corpora.corpora[index];
  const std::string name = corpus_name(config_.data.corpora, index);
  CorpusFilterOptions filter;
  filter.max_length = config_.data.max_length;
  filter.max_length_ratio = config_.data.max_length_ratio;
  std::vector<std::string> source_texts, target_texts;
  ParallelCorpus corpus = ParallelCorpus::from_sequences({}, {});
  if (options.tsv.empty()) {
    corpus = ParallelCorpus::load(options.source, options.target, source_tokenizer_, target_tokenizer_, filter);
    if (config_.train.sampling_alpha > 0) read_kept_texts(corpus, options.source, options.target, source_texts, target_texts);
  } else {
    const TsvColumns table = read_tsv_columns(options.tsv, {options.source_column, options.target_column});
    corpus = ParallelCorpus::from_texts(table.fields[0], table.fields[1], table.lines, source_tokenizer_,
                                        target_tokenizer_, filter, options.tsv);
    if (config_.train.sampling_alpha > 0) kept_tsv_texts(corpus, table, source_texts, target_texts);
  }
  const CorpusCounts& c = corpus.counts();
  log().info("{}: {} pairs kept of {} ({} empty, {} too long, {} bad length ratio); weight {}{}{}", name, c.kept,
             c.lines, c.empty, c.too_long, c.bad_ratio, options.weight, options.tag.empty() ? "" : ", tag ",
             options.tag);
  if (corpus.size() == 0) throw DataError(name + ": no training pairs left after filtering");
  for (const bool reversed : {false, true}) {
    if (reversed && !options.reverse) break;
    Stream stream;
    stream.first = sources.size();
    stream.size = corpus.size();
    stream.weight = options.weight;
    const std::string& tag = reversed ? options.reverse_tag : options.tag;
    stream.tag = tag.empty() ? -1 : source_tokenizer_.piece_to_id(tag);
    stream.reversed = reversed;
    for (std::size_t i = 0; i < corpus.size(); ++i) {
      sources.push_back(with_tag(stream.tag, reversed ? corpus.target(i) : corpus.source(i)));
      const TokenSpan target = reversed ? corpus.source(i) : corpus.target(i);
      targets.emplace_back(target.begin(), target.end());
    }
    stream.source_texts = reversed ? target_texts : source_texts;
    stream.target_texts = reversed ? source_texts : target_texts;
    streams_.push_back(std::move(stream));
  }
}

std::uint64_t TrainingCorpus::fingerprint() const {
  std::uint64_t hash = corpus_->fingerprint();
  if (streams_.size() == 1) return hash;  // one corpus: what ranks compared before data.corpus
  for (const Stream& stream : streams_) hash = hash * 0x100000001B3ull ^ (stream.size + 0x9E3779B97F4A7C15ull);
  return hash;
}

EpochBatches::CorpusForEpoch TrainingCorpus::corpus_for_epoch() const {
  const bool sampling = config_.train.sampling_alpha > 0;
  if (config_.data.corpora.empty()) {
    if (!sampling) return nullptr;
    return [this](std::int64_t epoch) { return sampled_corpus(epoch); };
  }
  return [this, sampling](std::int64_t epoch) {
    if (!sampling) return mixed_corpus(*corpus_, epoch);
    const auto sampled = sampled_corpus(epoch);
    return mixed_corpus(*sampled, epoch);
  };
}

std::unique_ptr<ParallelCorpus> TrainingCorpus::sampled_corpus(std::int64_t epoch) const {
  const SamplingOptions sampling{static_cast<float>(config_.train.sampling_alpha), -1};
  const auto limit = static_cast<std::size_t>(config_.data.max_length > 0 ? config_.data.max_length : INT32_MAX);
  std::vector<std::vector<int>> all_sources, all_targets;
  for (std::size_t s = 0; s < streams_.size(); ++s) {
    const Stream& stream = streams_[s];
    // Stream 0's seeds are those of the one-corpus runs before data.corpus (the same samples).
    const auto seed = static_cast<std::uint32_t>(config_.seed * 1000003u + static_cast<std::uint64_t>(epoch) +
                                                 s * 0x2545F491u);
    const Tokenizer& source_side = stream.reversed ? target_tokenizer_ : source_tokenizer_;
    const Tokenizer& target_side = stream.reversed ? source_tokenizer_ : target_tokenizer_;
    auto sources = source_side.sample_encode(stream.source_texts, sampling, seed);
    auto targets = target_side.sample_encode(stream.target_texts, sampling, seed ^ 0x9E3779B9u);
    // A sampled segmentation is longer than the best one; keep the best where it would break the limit.
    for (std::size_t i = 0; i < sources.size(); ++i) {
      const std::size_t at = stream.first + i;
      if (sources[i].size() > limit || targets[i].size() > limit) {
        sources[i].assign(corpus_->source(at).begin() + (stream.tag >= 0 ? 1 : 0), corpus_->source(at).end());
        targets[i].assign(corpus_->target(at).begin(), corpus_->target(at).end());
      }
      if (stream.tag >= 0) sources[i].insert(sources[i].begin(), stream.tag);
    }
    if (streams_.size() == 1) return std::make_unique<ParallelCorpus>(ParallelCorpus::from_sequences(sources, targets));
    all_sources.insert(all_sources.end(), std::make_move_iterator(sources.begin()), std::make_move_iterator(sources.end()));
    all_targets.insert(all_targets.end(), std::make_move_iterator(targets.begin()), std::make_move_iterator(targets.end()));
  }
  return std::make_unique<ParallelCorpus>(ParallelCorpus::from_sequences(all_sources, all_targets));
}

std::unique_ptr<ParallelCorpus> TrainingCorpus::mixed_corpus(const ParallelCorpus& segmented, std::int64_t epoch) const {
  std::vector<MixtureCorpus> mixture;
  for (const Stream& stream : streams_) mixture.push_back({stream.size, stream.weight});
  std::vector<std::vector<int>> sources, targets;
  for (const std::size_t i : mixture_epoch(mixture, config_.seed, epoch)) {
    sources.emplace_back(segmented.source(i).begin(), segmented.source(i).end());
    targets.emplace_back(segmented.target(i).begin(), segmented.target(i).end());
  }
  return std::make_unique<ParallelCorpus>(ParallelCorpus::from_sequences(sources, targets));
}

}  // namespace nmt
