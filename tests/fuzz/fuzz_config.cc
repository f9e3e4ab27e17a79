// Fuzz target: the programs' TOML configuration files (apps/common/config_file.h), read through
// CLI11 as `nmt-train --config FILE` reads them.
//
// Input: the configuration file. The options are nmt-train's (copied from apps/nmt_train.cc: every
// value type it uses, top-level keys and [sections], a flag that is not configurable), so the
// configs/*.toml files are valid seeds. A file either parses or throws a CLI11 error or
// nmt::Error, as the programs expect (apps/common/app_main.cc). A file that parses is written back
// with effective_config(), which must parse again to the same effective configuration.
#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "apps/common/app_main.h"
#include "apps/common/config_file.h"
#include "nmt/core/error.h"
#include "nmt/train/train_config.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

using nmt::fuzz::MemoryFile;

// nmt-train's options, as apps/nmt_train.cc defines them (copied: its main defines them inline).
struct Options {
  nmt::TrainConfig c;
  std::string spm_type = "unigram", attention = "bahdanau", style = "bahdanau", bridge = "linear";
  std::string optimizer = "adam", schedule = "constant", metric = "bleu";
};

void define(CLI::App& app, Options& o) {
  nmt::app::add_common_options(app);
  nmt::app::add_config_file_option(app);
  nmt::TrainConfig& c = o.c;
  std::string &spm_type = o.spm_type, &attention = o.attention, &style = o.style, &bridge = o.bridge;
  std::string &optimizer = o.optimizer, &schedule = o.schedule, &metric = o.metric;
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
}

// Parses `--config PATH` into a fresh application; returns false if the file is rejected, with the
// reason in `error`.
bool parse(const std::string& path, std::string& effective, std::string& error) {
  CLI::App app{"fuzz"};
  Options options;
  define(app, options);
  const std::string program = "nmt-fuzz", flag = "--config";
  char* argv[] = {const_cast<char*>(program.c_str()), const_cast<char*>(flag.c_str()), const_cast<char*>(path.c_str())};
  try {
    app.parse(3, argv);
  } catch (const CLI::Error& e) {
    error = e.what();
    return false;
  } catch (const nmt::Error& e) {
    error = e.what();
    return false;
  } catch (const std::exception& e) {
    FUZZ_UNEXPECTED("CLI::App::parse with the TOML reader", e);
  }
  try {
    effective = nmt::app::effective_config(app);
  } catch (const std::exception& e) {
    FUZZ_UNEXPECTED("effective_config", e);
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static MemoryFile file("fuzz-config"), written("fuzz-config-effective");
  file.set(nmt::fuzz::as_view(data, size));
  std::string effective, error;
  if (!parse(file.path(), effective, error)) return 0;
  // What a run directory's config.toml holds must configure the same run again. (NMT_FUZZ_NO_ROUNDTRIP=1
  // skips this, to fuzz the reader past a known round-trip bug.)
  static const bool roundtrip = std::getenv("NMT_FUZZ_NO_ROUNDTRIP") == nullptr;
  if (!roundtrip) return 0;
  written.set(effective);
  std::string again;
  FUZZ_CHECK(parse(written.path(), again, error), "the effective configuration does not parse (" + error + "):\n" + effective);
  FUZZ_CHECK(again == effective, "the effective configuration changes when read back:\n" + effective + "---\n" + again);
  return 0;
}
