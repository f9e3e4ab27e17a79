#include "nmt/train/training_data.h"

#include <climits>
#include <filesystem>

#include "nmt/core/error.h"
#include "nmt/core/log.h"
#include "nmt/data/text_file.h"

namespace nmt {
namespace fs = std::filesystem;

TokenizerPair load_or_train_tokenizers(const TrainConfig& config) {
  const DataOptions& d = config.data;
  const bool joint = d.target_spm.empty();
  if (fs::exists(d.source_spm) && (joint || fs::exists(d.target_spm))) {
    Tokenizer source = Tokenizer::load(d.source_spm);
    Tokenizer target = joint ? source : Tokenizer::load(d.target_spm);
    return {std::move(source), std::move(target)};
  }
  log().info("subword model {} not found: training it on the training data", joint ? d.source_spm : d.target_spm);
  TokenizerPairOptions options;
  options.joint = joint;
  options.source_model_path = d.source_spm;
  options.target_model_path = d.target_spm;
  options.common.model_type = d.spm_type;
  options.common.vocab_size = d.vocab_size;
  options.common.seed = static_cast<std::uint32_t>(config.seed);
  return train_tokenizer_pair({d.train_source}, {d.train_target}, options);
}

TrainingCorpus::TrainingCorpus(const TrainConfig& config, const Tokenizer& source_tokenizer,
                               const Tokenizer& target_tokenizer)
    : config_(config), source_tokenizer_(source_tokenizer), target_tokenizer_(target_tokenizer) {
  CorpusFilterOptions filter;
  filter.max_length = config.data.max_length;
  filter.max_length_ratio = config.data.max_length_ratio;
  corpus_ = std::make_unique<ParallelCorpus>(ParallelCorpus::load(config.data.train_source, config.data.train_target,
                                                                  source_tokenizer, target_tokenizer, filter));
  const CorpusCounts& c = corpus_->counts();
  log().info("training data: {} pairs kept of {} ({} empty, {} too long, {} bad length ratio); {} + {} subwords",
             c.kept, c.lines, c.empty, c.too_long, c.bad_ratio, corpus_->source_tokens(), corpus_->target_tokens());
  if (corpus_->size() == 0) throw DataError("no training pairs left in " + config.data.train_source + " after filtering");
  if (config.train.sampling_alpha > 0) {
    // Subword sampling re-segments the kept pairs every epoch: keep their text.
    TextLineReader sources(config.data.train_source), targets(config.data.train_target);
    std::string source, target;
    std::size_t next = 0;
    while (next < corpus_->size() && sources.next(source) && targets.next(target)) {
      if (sources.line_number() == corpus_->line_number(next)) {
        source_texts_.push_back(source);
        target_texts_.push_back(target);
        ++next;
      }
    }
  }
}

EpochBatches::CorpusForEpoch TrainingCorpus::corpus_for_epoch() const {
  if (config_.train.sampling_alpha <= 0) return nullptr;
  return [this](std::int64_t epoch) { return sampled_corpus(epoch); };
}

std::unique_ptr<ParallelCorpus> TrainingCorpus::sampled_corpus(std::int64_t epoch) const {
  const SamplingOptions sampling{static_cast<float>(config_.train.sampling_alpha), -1};
  const auto seed = static_cast<std::uint32_t>(config_.seed * 1000003u + static_cast<std::uint64_t>(epoch));
  auto sources = source_tokenizer_.sample_encode(source_texts_, sampling, seed);
  auto targets = target_tokenizer_.sample_encode(target_texts_, sampling, seed ^ 0x9E3779B9u);
  // A sampled segmentation is longer than the best one; keep the best where it would break the limit.
  const auto limit = static_cast<std::size_t>(config_.data.max_length > 0 ? config_.data.max_length : INT32_MAX);
  for (std::size_t i = 0; i < sources.size(); ++i) {
    if (sources[i].size() > limit || targets[i].size() > limit) {
      sources[i].assign(corpus_->source(i).begin(), corpus_->source(i).end());
      targets[i].assign(corpus_->target(i).begin(), corpus_->target(i).end());
    }
  }
  return std::make_unique<ParallelCorpus>(ParallelCorpus::from_sequences(sources, targets));
}

}  // namespace nmt
