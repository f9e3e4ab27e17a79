// nmt-train: parse flags and a TOML file into TrainConfig, then run the library's Trainer.
#include <csignal>

#include "apps/common/app_main.h"
#include "apps/common/config_file.h"
#include "nmt/core/allocator.h"
#include "nmt/core/error.h"
#include "nmt/train/trainer.h"

int main(int argc, char** argv) {
  CLI::App app{"Train an attention-based GRU translation model (docs/training.md)."};
  nmt::app::add_common_options(app);
  nmt::app::add_config_file_option(app);
  nmt::TrainConfig c;
  std::string spm_type = "unigram", attention = "bahdanau", style = "bahdanau", bridge = "linear";
  std::string optimizer = "adam", schedule = "constant", metric = "bleu";

  app.add_option("--run-dir", c.run_dir, "Directory for checkpoints, log, metrics and config")->capture_default_str();
  app.add_option("--device", c.device, "auto, cpu, cuda or cuda:N")->capture_default_str();
  app.add_option("--threads", c.threads, "CPU intra-op threads (measure before raising)")->capture_default_str();
  app.add_option("--seed", c.seed, "Random seed (initialisation, dropout, batch order)")->capture_default_str();
  app.add_flag("--resume", c.resume, "Continue the run in --run-dir from its latest checkpoint")->configurable(false);

  app.add_option("--data.train-source", c.data.train_source, "Training source text")->capture_default_str();
  app.add_option("--data.train-target", c.data.train_target, "Training target text")->capture_default_str();
  app.add_option("--data.dev-source", c.data.dev_source, "Validation source text")->capture_default_str();
  app.add_option("--data.dev-target", c.data.dev_target, "Validation target text")->capture_default_str();
  app.add_option("--data.source-spm", c.data.source_spm, "Source (or joint) SentencePiece model; trained if missing")
      ->capture_default_str();
  app.add_option("--data.target-spm", c.data.target_spm, "Target SentencePiece model (empty: joint)")->capture_default_str();
  app.add_option("--data.spm-type", spm_type, "unigram or bpe, when training the subword model")->capture_default_str();
  app.add_option("--data.vocab-size", c.data.vocab_size, "Pieces, when training the subword model")->capture_default_str();
  app.add_option("--data.max-length", c.data.max_length, "Drop pairs with a side longer (subwords; 0: no limit)")
      ->capture_default_str();
  app.add_option("--data.max-length-ratio", c.data.max_length_ratio, "Drop pairs above this length ratio (0: none)")
      ->capture_default_str();

  app.add_option("--model.embedding-size", c.model.embedding_size, "E")->capture_default_str();
  app.add_option("--model.encoder-hidden-size", c.model.encoder_hidden_size, "H, per direction")->capture_default_str();
  app.add_option("--model.encoder-layers", c.model.encoder_layers, "Encoder GRU layers")->capture_default_str();
  app.add_option("--model.decoder-hidden-size", c.model.decoder_hidden_size, "D")->capture_default_str();
  app.add_option("--model.decoder-layers", c.model.decoder_layers, "Decoder GRU layers")->capture_default_str();
  app.add_option("--model.attention-size", c.model.attention_size, "A, for bahdanau and concat scores")
      ->capture_default_str();
  app.add_option("--model.attention", attention, "bahdanau, dot, general or concat")->capture_default_str();
  app.add_option("--model.decoder-style", style, "bahdanau or luong")->capture_default_str();
  app.add_option("--model.bridge", bridge, "zero or linear")->capture_default_str();
  app.add_option("--model.dropout", c.model.dropout, "Dropout rate")->capture_default_str();
  app.add_option("--model.share-embeddings", c.model.share_embeddings, "One embedding matrix (joint vocabulary)")
      ->capture_default_str();
  app.add_option("--model.tie-output-embedding", c.model.tie_output_embedding, "Output layer = target embeddings")
      ->capture_default_str();

  app.add_option("--train.max-steps", c.train.max_steps, "Optimizer steps (0: no limit)")->capture_default_str();
  app.add_option("--train.max-epochs", c.train.max_epochs, "Epochs (0: no limit)")->capture_default_str();
  app.add_option("--train.max-minutes", c.train.max_minutes, "Wall-clock limit (0: none)")->capture_default_str();
  app.add_option("--train.max-tokens", c.train.max_tokens, "Tokens per batch, padding included")->capture_default_str();
  app.add_option("--train.accumulate", c.train.accumulate, "Batches per optimizer step")->capture_default_str();
  app.add_option("--train.label-smoothing", c.train.label_smoothing, "Label smoothing")->capture_default_str();
  app.add_option("--train.clip-norm", c.train.clip_norm, "Gradient clipping by global norm (0: off)")
      ->capture_default_str();
  app.add_option("--train.sampling-alpha", c.train.sampling_alpha, "Subword sampling alpha (0: off)")
      ->capture_default_str();
  app.add_option("--train.log-every", c.train.log_every, "Steps between progress lines")->capture_default_str();
  app.add_option("--train.max-bad-batches", c.train.max_bad_batches, "Stop after this many non-finite batches in a row")
      ->capture_default_str();
  app.add_option("--train.amp", c.train.amp, "bfloat16 autocast (CUDA only)")->capture_default_str();

  app.add_option("--optim.optimizer", optimizer, "adam or adamw")->capture_default_str();
  app.add_option("--optim.lr", c.schedule.lr, "Learning rate (peak rate for warmup)")->capture_default_str();
  app.add_option("--optim.beta1", c.optim.beta1, "Adam beta1")->capture_default_str();
  app.add_option("--optim.beta2", c.optim.beta2, "Adam beta2")->capture_default_str();
  app.add_option("--optim.eps", c.optim.eps, "Adam epsilon")->capture_default_str();
  app.add_option("--optim.weight-decay", c.optim.weight_decay, "Weight decay")->capture_default_str();

  app.add_option("--schedule.type", schedule, "constant, plateau or warmup")->capture_default_str();
  app.add_option("--schedule.decay", c.schedule.decay, "Plateau: decay factor")->capture_default_str();
  app.add_option("--schedule.patience", c.schedule.patience, "Plateau: validations without improvement")
      ->capture_default_str();
  app.add_option("--schedule.min-lr", c.schedule.min_lr, "Plateau: lowest rate")->capture_default_str();
  app.add_option("--schedule.warmup-steps", c.schedule.warmup_steps, "Warmup: steps of linear warm-up")
      ->capture_default_str();

  app.add_option("--valid.every", c.valid.every, "Steps between validations (0: only at the end)")->capture_default_str();
  app.add_option("--valid.max-sentences", c.valid.max_sentences, "Dev sentences translated for BLEU (0: all)")
      ->capture_default_str();
  app.add_option("--valid.examples", c.valid.examples, "Example translations logged")->capture_default_str();
  app.add_option("--valid.metric", metric, "bleu or loss: best checkpoint, early stopping, plateau")
      ->capture_default_str();
  app.add_option("--valid.patience", c.valid.patience, "Early stopping patience in validations (0: off)")
      ->capture_default_str();
  app.add_option("--valid.max-length-a", c.valid.max_length_a, "Translations: at most a * n + b tokens")
      ->capture_default_str();
  app.add_option("--valid.max-length-b", c.valid.max_length_b, "Translations: at most a * n + b tokens")
      ->capture_default_str();

  app.add_option("--checkpoint.every", c.checkpoint.every, "Steps between checkpoints")->capture_default_str();
  app.add_option("--checkpoint.keep-last", c.checkpoint.keep_last, "Step checkpoints kept")->capture_default_str();

  int exit_status = 0;
  const int parsed = nmt::app::run(app, argc, argv, [&] {
    c.data.spm_type = nmt::parse_subword_model_type(spm_type);
    c.model.attention = nmt::parse_attention_type(attention);
    c.model.decoder_style = nmt::parse_decoder_style(style);
    c.model.bridge = nmt::parse_bridge_type(bridge);
    c.optim.type = nmt::parse_optimizer_type(optimizer);
    c.schedule.type = nmt::parse_schedule_type(schedule);
    c.valid.metric = nmt::parse_validation_metric(metric);
    nmt::keep_freed_memory();  // same-sized large tensors every step: reuse, do not unmap (allocator.h)
    nmt::Trainer trainer(c, nmt::app::effective_config(app));
    const nmt::TrainResult result = trainer.run();
    if (result.signal != 0) exit_status = 128 + result.signal;  // the shell's convention for a signal
  });
  return parsed != 0 ? parsed : exit_status;
}
