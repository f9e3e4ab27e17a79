#include "apps/common/train_options.h"

#include "nmt/data/tokenizer_training.h"

namespace nmt::app {

TrainOptions::TrainOptions(CLI::App& app) {
  app.add_option("--run-dir", config_.run_dir, "Directory for checkpoints, log, metrics and config")->capture_default_str();
  app.add_option("--device", config_.device, "auto, cpu, cuda or cuda:N")->capture_default_str();
  app.add_option("--threads", config_.threads, "CPU intra-op threads (measure before raising)")->capture_default_str();
  app.add_option("--blas-threads", config_.blas_threads, "OpenBLAS threads per product (0: as --threads)")
      ->capture_default_str();
  app.add_option("--seed", config_.seed, "Random seed (initialisation, dropout, batch order)")->capture_default_str();
  app.add_flag("--resume", config_.resume, "Continue the run in --run-dir from its latest checkpoint")->configurable(false);

  app.add_option("--data.train-source", config_.data.train_source, "Training source text")->capture_default_str();
  app.add_option("--data.train-target", config_.data.train_target, "Training target text")->capture_default_str();
  app.add_option("--data.dev-source", config_.data.dev_source, "Validation source text")->capture_default_str();
  app.add_option("--data.dev-target", config_.data.dev_target, "Validation target text")->capture_default_str();
  app.add_option("--data.source-spm", config_.data.source_spm, "Source (or joint) SentencePiece model; trained if missing")
      ->capture_default_str();
  app.add_option("--data.target-spm", config_.data.target_spm, "Target SentencePiece model (empty: joint)")->capture_default_str();
  app.add_option("--data.spm-type", spm_type_, "unigram or bpe, when training the subword model")->capture_default_str();
  app.add_option("--data.vocab-size", config_.data.vocab_size, "Pieces, when training the subword model")->capture_default_str();
  app.add_option("--data.max-length", config_.data.max_length, "Drop pairs with a side longer (subwords; 0: no limit)")
      ->capture_default_str();
  app.add_option("--data.max-length-ratio", config_.data.max_length_ratio, "Drop pairs above this length ratio (0: none)")
      ->capture_default_str();

  app.add_option("--model.embedding-size", config_.model.embedding_size, "E")->capture_default_str();
  app.add_option("--model.encoder-hidden-size", config_.model.encoder_hidden_size, "H, per direction")->capture_default_str();
  app.add_option("--model.encoder-layers", config_.model.encoder_layers, "Encoder GRU layers")->capture_default_str();
  app.add_option("--model.decoder-hidden-size", config_.model.decoder_hidden_size, "D")->capture_default_str();
  app.add_option("--model.decoder-layers", config_.model.decoder_layers, "Decoder GRU layers")->capture_default_str();
  app.add_option("--model.attention-size", config_.model.attention_size, "A, for bahdanau and concat scores")
      ->capture_default_str();
  app.add_option("--model.attention", attention_, "bahdanau, dot, general, concat, or none (no attention: the plain encoder-decoder)")->capture_default_str();
  app.add_option("--model.decoder-style", style_, "bahdanau or luong")->capture_default_str();
  app.add_option("--model.bridge", bridge_, "zero or linear")->capture_default_str();
  app.add_option("--model.dropout", config_.model.dropout, "Dropout rate")->capture_default_str();
  app.add_option("--model.share-embeddings", config_.model.share_embeddings, "One embedding matrix (joint vocabulary)")
      ->capture_default_str();
  app.add_option("--model.tie-output-embedding", config_.model.tie_output_embedding, "Output layer = target embeddings")
      ->capture_default_str();

  app.add_option("--train.max-steps", config_.train.max_steps, "Optimizer steps (0: no limit)")->capture_default_str();
  app.add_option("--train.max-epochs", config_.train.max_epochs, "Epochs (0: no limit)")->capture_default_str();
  app.add_option("--train.max-minutes", config_.train.max_minutes, "Wall-clock limit (0: none)")->capture_default_str();
  app.add_option("--train.max-tokens", config_.train.max_tokens, "Tokens per batch, padding included")->capture_default_str();
  app.add_option("--train.accumulate", config_.train.accumulate, "Batches per optimizer step")->capture_default_str();
  app.add_option("--train.label-smoothing", config_.train.label_smoothing, "Label smoothing")->capture_default_str();
  app.add_option("--train.clip-norm", config_.train.clip_norm, "Gradient clipping by global norm (0: off)")
      ->capture_default_str();
  app.add_option("--train.sampling-alpha", config_.train.sampling_alpha, "Subword sampling alpha (0: off)")
      ->capture_default_str();
  app.add_option("--train.log-every", config_.train.log_every, "Steps between progress lines")->capture_default_str();
  app.add_option("--train.max-bad-batches", config_.train.max_bad_batches, "Stop after this many non-finite batches in a row")
      ->capture_default_str();
  app.add_option("--train.amp", config_.train.amp, "bfloat16 autocast (CUDA only)")->capture_default_str();

  app.add_option("--optim.optimizer", optimizer_, "adam or adamw")->capture_default_str();
  app.add_option("--optim.lr", config_.schedule.lr, "Learning rate (peak rate for warmup)")->capture_default_str();
  app.add_option("--optim.beta1", config_.optim.beta1, "Adam beta1")->capture_default_str();
  app.add_option("--optim.beta2", config_.optim.beta2, "Adam beta2")->capture_default_str();
  app.add_option("--optim.eps", config_.optim.eps, "Adam epsilon")->capture_default_str();
  app.add_option("--optim.weight-decay", config_.optim.weight_decay, "Weight decay")->capture_default_str();

  app.add_option("--schedule.type", schedule_, "constant, plateau or warmup")->capture_default_str();
  app.add_option("--schedule.decay", config_.schedule.decay, "Plateau: decay factor")->capture_default_str();
  app.add_option("--schedule.patience", config_.schedule.patience, "Plateau: validations without improvement")
      ->capture_default_str();
  app.add_option("--schedule.min-lr", config_.schedule.min_lr, "Plateau: lowest rate")->capture_default_str();
  app.add_option("--schedule.warmup-steps", config_.schedule.warmup_steps, "Warmup: steps of linear warm-up")
      ->capture_default_str();

  app.add_option("--valid.every", config_.valid.every, "Steps between validations (0: only at the end)")->capture_default_str();
  app.add_option("--valid.max-sentences", config_.valid.max_sentences, "Dev sentences translated for BLEU (0: all)")
      ->capture_default_str();
  app.add_option("--valid.examples", config_.valid.examples, "Example translations logged")->capture_default_str();
  app.add_option("--valid.metric", metric_, "bleu or loss: best checkpoint, early stopping, plateau")
      ->capture_default_str();
  app.add_option("--valid.patience", config_.valid.patience, "Early stopping patience in validations (0: off)")
      ->capture_default_str();
  app.add_option("--valid.max-length-a", config_.valid.max_length_a, "Translations: at most a * n + b tokens")
      ->capture_default_str();
  app.add_option("--valid.max-length-b", config_.valid.max_length_b, "Translations: at most a * n + b tokens")
      ->capture_default_str();
  app.add_option("--valid.attention-maps", config_.valid.attention_maps,
                 "Heat-maps of the examples' attention per validation (RUN_DIR/attention/step-N/): png, svg, pdf "
                 "(comma-separated) or none")
      ->capture_default_str();

  app.add_option("--checkpoint.every", config_.checkpoint.every, "Steps between checkpoints")->capture_default_str();
  app.add_option("--checkpoint.keep-last", config_.checkpoint.keep_last, "Step checkpoints kept")->capture_default_str();

  app.add_option("--dist.nproc-per-node", config_.dist.nproc_per_node, "Ranks to start and supervise on this machine")
      ->capture_default_str();
  app.add_option("--dist.nnodes", config_.dist.nnodes, "Machines in the group")->capture_default_str();
  app.add_option("--dist.node-rank", config_.dist.node_rank, "This machine's place, 0 .. nnodes-1")->capture_default_str();
  app.add_option("--dist.master-addr", config_.dist.master_addr, "Rank 0's host (empty: MASTER_ADDR or 127.0.0.1)")
      ->capture_default_str();
  app.add_option("--dist.master-port", config_.dist.master_port, "Rendezvous port (0: MASTER_PORT, or a free port on one machine)")
      ->capture_default_str();
  app.add_option("--dist.backend", backend_, "auto, gloo or nccl")->capture_default_str();
  app.add_option("--dist.timeout", config_.dist.timeout_s, "Seconds any rank may wait for the others (incl. a validation)")
      ->capture_default_str();
}

TrainConfig TrainOptions::config() const {
  TrainConfig c = config_;
  c.data.spm_type = parse_subword_model_type(spm_type_);
  c.model.attention = parse_attention_type(attention_);
  c.model.decoder_style = parse_decoder_style(style_);
  c.model.bridge = parse_bridge_type(bridge_);
  c.optim.type = parse_optimizer_type(optimizer_);
  c.schedule.type = parse_schedule_type(schedule_);
  c.valid.metric = parse_validation_metric(metric_);
  c.dist.backend = parse_dist_backend(backend_);
  return c;
}

}  // namespace nmt::app
