// Everything nmt-train can be told, as plain structs, and for_each_option: the one list of the
// options with their keys and help texts, from which nmt-train registers its flags and config-file
// keys (section.key = --section.key), and the library writes the effective configuration
// (to_toml) and compares ranks' configurations. The library never looks options up by string.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "nmt/core/option_doc.h"
#include "nmt/data/tokenizer_training.h"
#include "nmt/dist/dist_options.h"
#include "nmt/model/model_config.h"
#include "nmt/plot/figure.h"
#include "nmt/train/corpus_options.h"
#include "nmt/train/lr_schedule.h"

namespace nmt {

// The fields' meanings are written once, as the help texts of for_each_option below (the keys
// and help that nmt-train --help shows); comments here say only what the help does not.

struct DataOptions {
  std::string train_source, train_target;  // the one-corpus shorthand, or
  CorpusList corpora;                      // several corpora (nmt/train/corpus_options.h)
  std::string default_tag;
  std::string dev_source, dev_target;
  std::string source_spm;
  std::string target_spm;  // empty: a joint model (source_spm for both sides)
  SubwordModelType spm_type = SubwordModelType::unigram;
  int vocab_size = 8000;
  int max_length = 100;
  double max_length_ratio = 0;
};

enum class OptimizerType { adam, adamw };
const EnumNames<OptimizerType>& enum_names(OptimizerType);  // adam, adamw

struct OptimizerOptions {
  OptimizerType type = OptimizerType::adam;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  double weight_decay = 0;
};

struct TrainingOptions {
  std::int64_t max_steps = 0;
  std::int64_t max_epochs = 0;
  double max_minutes = 0;
  std::int64_t max_tokens = 2000;  // see BatchingOptions
  std::int64_t accumulate = 1;
  double label_smoothing = 0.1;
  double clip_norm = 1.0;
  double sampling_alpha = 0;
  double word_dropout = 0;  // nmt/train/word_dropout.h
  std::int64_t log_every = 100;
  std::int64_t max_bad_batches = 10;
  bool amp = false;
  double ema_decay = 0;  // nmt/train/weight_ema.h
};

enum class ValidationMetric { bleu, loss };
const EnumNames<ValidationMetric>& enum_names(ValidationMetric);  // bleu, loss

struct ValidationOptions {
  std::int64_t every = 1000;
  std::int64_t max_sentences = 0;
  std::int64_t beam = 1;  // 1: greedy search (beam search with nmt-translate's length penalty otherwise)
  std::int64_t examples = 3;
  ValidationMetric metric = ValidationMetric::bleu;
  std::int64_t patience = 0;
  double max_length_a = 1.5;
  std::int64_t max_length_b = 10;
  plot::ImageFormatChoice attention_maps{{plot::ImageFormat::png}};  // models without attention draw none
};

struct CheckpointOptions {
  std::int64_t every = 1000;
  std::int64_t keep_last = 3;
  std::int64_t keep_best = 0;
};

struct TrainConfig {
  std::string run_dir = "runs/default";
  std::string device = "auto";
  int threads = 1;  // 1 is fastest on 2 cores (docs/benchmarks.md)
  int blas_threads = 0;
  std::uint64_t seed = 1;
  std::string init_from;  // nmt/train/initial_checkpoint.h
  bool resume = false;  // continue from the run directory's latest checkpoint (not an option of the table)

  DataOptions data;
  ModelConfig model;  // vocabulary sizes come from the subword models
  TrainingOptions train;
  OptimizerOptions optim;
  ScheduleOptions schedule;
  ValidationOptions valid;
  CheckpointOptions checkpoint;
  DistOptions dist;  // data-parallel training (docs/distributed.md)

  void validate() const;  // throws ConfigError naming the option as section.key
};

/// The effective configuration as TOML: every option of for_each_option in canonical form (what
/// a run directory's config.toml and every checkpoint hold; nmt-train --config reads it back),
/// but for data.corpus and the options marked written_only_when_set (data.default-tag,
/// train.word-dropout), which are written only when set.
std::string to_toml(const TrainConfig& config);

/// A digest of the options every rank of a group must share, per section ("" for the top-level
/// keys, then data, model, ...): all but run-dir, threads, blas-threads and [dist], and the data
/// files' paths (which may differ between machines); resume counts.
std::vector<std::pair<std::string, std::uint64_t>> shared_setup_digests(const TrainConfig& config);

// The option table, a section per function (for_each_option below calls them in order). `Config`
// is TrainConfig or const TrainConfig: the fields handed out are as mutable as the config.
namespace option_table {
template <class Config, class Visitor>
void top_level(Config& c, Visitor& visit) {
  visit(OptionDoc{"run-dir", "Directory for checkpoints, log, metrics and config"}, c.run_dir);
  visit(OptionDoc{"device", "auto, cpu, cuda or cuda:N"}, c.device);
  visit(OptionDoc{"threads", "CPU intra-op threads (measure before raising)"}, c.threads);
  visit(OptionDoc{"blas-threads", "OpenBLAS threads per product (0: as --threads)"}, c.blas_threads);
  visit(OptionDoc{"seed", "Random seed (initialisation, dropout, batch order)"}, c.seed);
  visit(OptionDoc{"init-from",
                  "Start from this checkpoint's parameters, architecture and subword models, with a fresh optimizer "
                  "and schedule (fine-tuning; [model] options may not differ but for dropout)"},
        c.init_from);
}
template <class Config, class Visitor>
void data(Config& c, Visitor& visit) {
  auto& d = c.data;
  visit(OptionDoc{"data.train-source",
                  "Training source text (UTF-8, one sentence a line, line-parallel to the target)"},
        d.train_source);
  visit(OptionDoc{"data.train-target", "Training target text"}, d.train_target);
  visit(OptionDoc{"data.corpus",
                  "Training corpora instead of train-source/-target, one [[data.corpus]] table each (keys source and "
                  "target, or tsv, source-column and target-column; weight, tag, reverse, reverse-tag; "
                  "docs/training.md); on the command line an inline table, repeated: "
                  "'{source = \"a.es\", target = \"a.en\", weight = 2}'"},
        d.corpora);
  visit(OptionDoc{"data.default-tag",
                  "Tag put before the dev sources, and before every source nmt-translate translates without --tag "
                  "(empty: none)",
                  /*written_only_when_set=*/true},
        d.default_tag);
  visit(OptionDoc{"data.dev-source", "Validation source text (dev loss, perplexity and BLEU)"}, d.dev_source);
  visit(OptionDoc{"data.dev-target", "Validation target text"}, d.dev_target);
  visit(OptionDoc{"data.source-spm",
                  "Source (or joint) SentencePiece model; trained on the training data if missing"},
        d.source_spm);
  visit(OptionDoc{"data.target-spm", "Target SentencePiece model (empty: joint)"}, d.target_spm);
  visit(OptionDoc{"data.spm-type", "Subword model type, when training the subword model"}, d.spm_type);
  visit(OptionDoc{"data.vocab-size", "Pieces, when training the subword model"}, d.vocab_size);
  visit(OptionDoc{"data.max-length", "Drop training pairs with a side longer (subwords; 0: no limit)"}, d.max_length);
  visit(OptionDoc{"data.max-length-ratio",
                  "Drop training pairs above this length ratio (0: none)"},
        d.max_length_ratio);
}
template <class Config, class Visitor>
void model(Config& c, Visitor& visit) {
  auto& m = c.model;
  visit(OptionDoc{"model.embedding-size", "E"}, m.embedding_size);
  visit(OptionDoc{"model.encoder-hidden-size", "H, per direction"}, m.encoder_hidden_size);
  visit(OptionDoc{"model.encoder-layers", "Encoder GRU layers"}, m.encoder_layers);
  visit(OptionDoc{"model.decoder-hidden-size", "D"}, m.decoder_hidden_size);
  visit(OptionDoc{"model.decoder-layers", "Decoder GRU layers"}, m.decoder_layers);
  visit(OptionDoc{"model.attention-size", "A, for bahdanau and concat scores"}, m.attention_size);
  visit(OptionDoc{"model.attention", "Attention score (none: no attention, the plain encoder-decoder)"}, m.attention);
  visit(OptionDoc{"model.attention-normaliser",
                  "Scores to weights: softmax, sparsemax and 1.5-entmax (exact zeros), or hard (one position)"},
        m.attention_normaliser);
  visit(OptionDoc{"model.attention-window",
                  "Where attention looks: every position, or a window at p_t = t (local-m), a predicted p_t (local-p) "
                  "or t plus a learnt offset of at most W (local-p-offset)"},
        m.attention_window);
  visit(OptionDoc{"model.attention-window-size", "W: local windows span [p_t - W, p_t + W]"}, m.attention_window_size);
  visit(OptionDoc{"model.decoder-style", "Decoder style"}, m.decoder_style);
  visit(OptionDoc{"model.bridge", "Decoder's initial state: zeros, or tanh(W [fwd_n; bwd_1])"}, m.bridge);
  visit(OptionDoc{"model.dropout", "Dropout rate"}, m.dropout);
  visit(OptionDoc{"model.share-embeddings", "One embedding matrix (joint vocabulary)"}, m.share_embeddings);
  visit(OptionDoc{"model.tie-output-embedding", "Output layer = target embeddings"}, m.tie_output_embedding);
}
template <class Config, class Visitor>
void train(Config& c, Visitor& visit) {
  auto& t = c.train;
  visit(OptionDoc{"train.max-steps", "Optimizer steps (0: no limit)"}, t.max_steps);
  visit(OptionDoc{"train.max-epochs", "Epochs (0: no limit)"}, t.max_epochs);
  visit(OptionDoc{"train.max-minutes", "Wall-clock limit in minutes (0: none)"}, t.max_minutes);
  visit(OptionDoc{"train.max-tokens", "Tokens per batch, padding included"}, t.max_tokens);
  visit(OptionDoc{"train.accumulate", "Batches per optimizer step"}, t.accumulate);
  visit(OptionDoc{"train.label-smoothing", "Label smoothing"}, t.label_smoothing);
  visit(OptionDoc{"train.clip-norm", "Gradient clipping by global norm (0: off)"}, t.clip_norm);
  visit(OptionDoc{"train.sampling-alpha",
                  "Subword sampling of training sources and targets: alpha (0: off)"},
        t.sampling_alpha);
  visit(OptionDoc{"train.word-dropout",
                  "Replace whole source and decoder-input tokens by <unk> at this rate (0: off)",
                  /*written_only_when_set=*/true},
        t.word_dropout);
  visit(OptionDoc{"train.log-every", "Steps between progress lines"}, t.log_every);
  visit(OptionDoc{"train.max-bad-batches", "Stop after this many non-finite batches in a row"}, t.max_bad_batches);
  visit(OptionDoc{"train.amp", "bfloat16 autocast (CUDA only)"}, t.amp);
  visit(OptionDoc{"train.ema-decay",
                  "Exponential moving average of the weights, used for validation and saved models (0: off; "
                  "e.g. 0.999)"},
        t.ema_decay);
}
template <class Config, class Visitor>
void optim(Config& c, Visitor& visit) {
  visit(OptionDoc{"optim.optimizer", "Optimizer"}, c.optim.type);
  visit(OptionDoc{"optim.lr", "Learning rate (peak rate for warmup)"}, c.schedule.lr);
  visit(OptionDoc{"optim.beta1", "Adam beta1"}, c.optim.beta1);
  visit(OptionDoc{"optim.beta2", "Adam beta2"}, c.optim.beta2);
  visit(OptionDoc{"optim.eps", "Adam epsilon"}, c.optim.eps);
  visit(OptionDoc{"optim.weight-decay",
                  "Weight decay: an L2 penalty (adam) or decoupled decay (adamw)"},
        c.optim.weight_decay);
}
template <class Config, class Visitor>
void schedule(Config& c, Visitor& visit) {
  auto& s = c.schedule;
  visit(OptionDoc{"schedule.type", "Learning-rate schedule"}, s.type);
  visit(OptionDoc{"schedule.decay", "Plateau: decay factor"}, s.decay);
  visit(OptionDoc{"schedule.patience", "Plateau: validations without improvement"}, s.patience);
  visit(OptionDoc{"schedule.min-lr", "Plateau: lowest rate"}, s.min_lr);
  visit(OptionDoc{"schedule.warmup-steps", "Warmup: steps of linear warm-up"}, s.warmup_steps);
}
template <class Config, class Visitor>
void valid(Config& c, Visitor& visit) {
  auto& v = c.valid;
  visit(OptionDoc{"valid.every", "Steps between validations (0: only at the end)"}, v.every);
  visit(OptionDoc{"valid.max-sentences", "Dev sentences translated for BLEU (0: all)"}, v.max_sentences);
  visit(OptionDoc{"valid.beam",
                  "Beam size of the dev translations (1: greedy; else beam search with gnmt length penalty 0.6, as "
                  "nmt-translate)"},
        v.beam);
  visit(OptionDoc{"valid.examples", "Example translations logged"}, v.examples);
  visit(OptionDoc{"valid.metric", "Metric of the best checkpoint, early stopping and plateau"}, v.metric);
  visit(OptionDoc{"valid.patience", "Early stopping patience in validations (0: off)"}, v.patience);
  visit(OptionDoc{"valid.max-length-a", "Translations: at most a * n + b tokens"}, v.max_length_a);
  visit(OptionDoc{"valid.max-length-b", "Translations: at most a * n + b tokens"}, v.max_length_b);
  visit(OptionDoc{"valid.attention-maps",
                  "Heat-maps of the examples' attention per validation (RUN_DIR/attention/step-N/): png, svg, pdf "
                  "(comma-separated) or none"},
        v.attention_maps);
}
template <class Config, class Visitor>
void checkpoint(Config& c, Visitor& visit) {
  visit(OptionDoc{"checkpoint.every",
                  "Steps between checkpoints (besides the last one and on signals)"},
        c.checkpoint.every);
  visit(OptionDoc{"checkpoint.keep-last", "Step checkpoints kept (best.pt is kept apart)"}, c.checkpoint.keep_last);
  visit(OptionDoc{"checkpoint.keep-best",
                  "Also keep the step checkpoints of the N best validations by valid.metric (for nmt-checkpoint "
                  "average --best)"},
        c.checkpoint.keep_best);
}
template <class Config, class Visitor>
void dist(Config& c, Visitor& visit) {
  auto& g = c.dist;
  visit(OptionDoc{"dist.nproc-per-node", "Ranks to start and supervise on this machine"}, g.nproc_per_node);
  visit(OptionDoc{"dist.nnodes", "Machines in the group"}, g.nnodes);
  visit(OptionDoc{"dist.node-rank", "This machine's place, 0 .. nnodes-1"}, g.node_rank);
  visit(OptionDoc{"dist.master-addr", "Rank 0's host (empty: MASTER_ADDR or 127.0.0.1)"}, g.master_addr);
  visit(OptionDoc{"dist.master-port", "Rendezvous port (0: MASTER_PORT, or a free port on one machine)"},
        g.master_port);
  visit(OptionDoc{"dist.backend",
                  "Process-group backend (auto: nccl on CUDA where LibTorch has it, else gloo)"},
        g.backend);
  visit(OptionDoc{"dist.timeout", "Seconds any rank may wait for the others (incl. a validation)"}, g.timeout_s);
  visit(OptionDoc{"dist.overlap", "Sum each bucket of gradients while backward still runs (false: after backward)"},
        g.overlap);
  visit(OptionDoc{"dist.bucket-mb", "MiB of gradients per all-reduce"}, g.bucket_mb);
}
}  // namespace option_table

/// Calls visit(OptionDoc, field) for every option of a TrainConfig (const or not) but `resume` (a
/// command, not a setting), in the order of --help and config.toml. Fields are std::string, bool, int,
/// std::int64_t, std::uint64_t, double, an enum with enum_names, plot::ImageFormatChoice, or CorpusList
/// (data.corpus: an array of tables).
template <class Config, class Visitor>
void for_each_option(Config& c, Visitor&& visit) {
  static_assert(std::is_same_v<std::remove_const_t<Config>, TrainConfig>, "for_each_option takes a TrainConfig");
  option_table::top_level(c, visit);
  option_table::data(c, visit);
  option_table::model(c, visit);
  option_table::train(c, visit);
  option_table::optim(c, visit);
  option_table::schedule(c, visit);
  option_table::valid(c, visit);
  option_table::checkpoint(c, visit);
  option_table::dist(c, visit);
}

}  // namespace nmt
