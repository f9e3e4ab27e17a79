#include "nmt/train/validator.h"

#include <ATen/ATen.h>
#include <torch/types.h>

#include <cmath>

#include "nmt/core/error.h"
#include "nmt/core/torch_error.h"
#include "nmt/core/log.h"
#include "nmt/data/batch.h"
#include "nmt/data/batching.h"
#include "nmt/data/text_file.h"
#include "nmt/eval/bleu.h"
#include "nmt/model/inference/inference_model.h"
#include "nmt/translate/translation_output.h"
#include "nmt/translate/translator.h"
#include "nmt/train/loss.h"

namespace nmt {

double ValidationResult::metric(const ValidationResult& result, ValidationMetric metric) {
  return metric == ValidationMetric::bleu ? result.bleu : result.loss;
}

bool ValidationResult::better(double candidate, double best, ValidationMetric metric) {
  return metric == ValidationMetric::bleu ? candidate > best : candidate < best;
}

bool record_validation(double value, ValidationMetric metric, TrainingState& state) {
  const bool has_best = state.validations > 0 && std::isfinite(state.best_metric);
  const bool better = std::isfinite(value) && (!has_best || ValidationResult::better(value, state.best_metric, metric));
  ++state.validations;
  if (better) {
    state.best_metric = value;
    state.bad_validations = 0;
  } else {
    if (!has_best) state.best_metric = std::nan("");
    ++state.bad_validations;
  }
  return better;
}

Validator::Validator(const DataOptions& data, const ValidationOptions& options, double label_smoothing,
                     std::int64_t max_tokens, const Tokenizer& source_tokenizer, const Tokenizer& target_tokenizer)
    : options_(options),
      label_smoothing_(label_smoothing),
      max_tokens_(max_tokens),
      source_tokenizer_(source_tokenizer),
      target_tokenizer_(target_tokenizer),
      tag_(data.default_tag) {
  corpus_ = std::make_unique<ParallelCorpus>(
      ParallelCorpus::load(data.dev_source, data.dev_target, source_tokenizer, target_tokenizer));
  // Without a pair, the dev loss is 0/0 and BLEU is empty: a run would "improve" on NaN forever.
  if (corpus_->size() == 0) {
    throw DataError("dev set " + data.dev_source + " / " + data.dev_target + " has no sentence pair (" +
                    std::to_string(corpus_->counts().lines) + " lines, " + std::to_string(corpus_->counts().empty) +
                    " with an empty side): validation needs at least one");
  }
  if (!tag_.empty()) {  // the dev loss of the tagged sources, as the translations below see them
    const int tag = source_tokenizer.piece_to_id(tag_);
    std::vector<std::vector<int>> sources, targets;
    for (std::size_t i = 0; i < corpus_->size(); ++i) {
      sources.push_back(with_tag(tag, corpus_->source(i)));
      targets.emplace_back(corpus_->target(i).begin(), corpus_->target(i).end());
    }
    corpus_ = std::make_unique<ParallelCorpus>(ParallelCorpus::from_sequences(sources, targets));
  }
  TextLineReader sources(data.dev_source), references(data.dev_target);
  std::string source, reference;
  while (sources.next(source) && references.next(reference)) {
    if (options_.max_sentences > 0 && static_cast<std::int64_t>(sources_.size()) >= options_.max_sentences) break;
    sources_.push_back(source);
    references_.push_back(reference);
  }
}

ValidationResult Validator::run(Seq2Seq& model, const c10::Device& device) const {
  const bool was_training = model->is_training();
  model->eval();
  torch::NoGradGuard no_grad;
  ValidationResult result;

  BatchingOptions batching;
  batching.max_tokens = std::max<std::int64_t>(max_tokens_, 1);
  batching.shuffle = false;
  double loss = 0, nll = 0;
  std::int64_t tokens = 0;
  for (const auto& indices : plan_epoch(*corpus_, batching, 0)) {
    const Batch batch = make_batch(*corpus_, indices).to(device);
    const auto out = model->forward(batch.source, batch.source_lengths, batch.target_in);
    const LossSums sums = label_smoothed_cross_entropy(out.logits.reshape({-1, out.logits.size(-1)}),
                                                       batch.target_out.reshape(-1), label_smoothing_);
    loss += sums.loss.item<double>();
    nll += sums.nll.item<double>();
    tokens += sums.tokens;
  }
  result.loss = loss / static_cast<double>(tokens);
  result.perplexity = std::exp(nll / static_cast<double>(tokens));

  TranslateOptions translate;
  translate.search.beam_size = 1;
  translate.search.max_length_a = options_.max_length_a;
  translate.search.max_length_b = options_.max_length_b;
  translate.max_tokens = std::max<std::int64_t>(2 * max_tokens_, 1);
  translate.source_tag = tag_;
  const std::unique_ptr<InferenceModel> inference = model->for_inference(device);
  std::vector<std::string> hypotheses;
  if (options_.beam <= 1) {
    hypotheses = translate_greedy(*inference, source_tokenizer_, target_tokenizer_, sources_, translate, device);
  } else {
    // The search nmt-translate runs by default (gnmt length penalty, alpha 0.6), at this beam size.
    TranslateOptions beam = translate;
    beam.search.beam_size = options_.beam;
    beam.max_tokens = std::max<std::int64_t>(2 * max_tokens_ * options_.beam, 1);
    Translator translator(*inference, source_tokenizer_, target_tokenizer_, beam, device);
    for (Translation& t : translator.translate(sources_)) {
      hypotheses.push_back(t.hypotheses.empty() ? std::string() : std::move(t.hypotheses.front().text));
    }
  }
  const BleuScore bleu = corpus_bleu(hypotheses, {references_});
  result.bleu = bleu.score;
  result.bleu_text = bleu.format();
  for (std::size_t i = 0; i < hypotheses.size() && static_cast<std::int64_t>(i) < options_.examples; ++i) {
    result.sources.push_back(sources_[i]);
    result.references.push_back(references_[i]);
    result.hypotheses.push_back(hypotheses[i]);
  }
  if (!options_.attention_maps.none() && inference->has_attention() && !result.sources.empty()) {
    // The examples again, one sentence a batch, keeping attention: a few sentences, next to nothing
    // beside the dev set's translation.
    // A failure here costs the pictures (a warning), never the validation or the training.
    try {
      TranslateOptions keep = translate;  // the validation's own search (valid.beam)
      keep.search.beam_size = options_.beam;
      keep.search.keep_attention = true;
      keep.max_sentences = 1;
      Translator translator(*inference, source_tokenizer_, target_tokenizer_, keep, device);
      const std::vector<Translation> examples = translator.translate(result.sources);
      for (std::size_t i = 0; i < examples.size(); ++i) {
        result.example_attention.push_back(attention_record(examples[i], i, source_tokenizer_));
      }
    } catch (const std::exception& e) {
      result.example_attention.clear();
      log().warn("validation: no attention of the examples: {}", first_line(e));
    }
  }
  if (was_training) model->train();
  return result;
}

}  // namespace nmt
