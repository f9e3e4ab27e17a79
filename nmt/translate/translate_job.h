// One run of nmt-translate: a checkpoint over an input file, translations (or the scores of given
// targets) to outputs that appear whole or not at all.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "nmt/model/ensemble_decoder.h"
#include "nmt/model/inference/inference_precision.h"
#include "nmt/translate/translate_stream.h"
#include "nmt/translate/translator.h"

namespace nmt {

/// What runs the model: the toolkit's own inference code over a checkpoint's parameters, or the
/// TorchScript methods of a scripted model (any archive that keeps docs/checkpoints.md's contract).
enum class TranslateEngine { native, script };
const EnumNames<TranslateEngine>& enum_names(TranslateEngine);  // native, script

struct TranslateJob {
  /// Written by nmt-train (or, with engine script, any scripted model); several: an ensemble
  /// (nmt/model/ensemble_decoder.h) whose members share the first's target subword model.
  std::vector<std::string> checkpoints;
  EnsembleMode ensemble_mode = EnsembleMode::log_linear;
  TranslateEngine engine = TranslateEngine::native;
  std::string input = "-", output = "-";    // "-": stdin / stdout
  std::string attention_output;             // attention JSON lines; empty: none
  std::string alignment_output;             // hard word alignments; empty: none
  std::string score_targets;                // set: score these targets (forced decoding) instead of translating
  std::string shortlist;                    // a lexical shortlist for search (nmt-checkpoint shortlist); empty: none
  bool scores = false;                      // prefix each translation with its score
  std::optional<std::string> tag;           // --tag: put before every source ("": none); unset: the
                                            //   first checkpoint's data.default-tag (source_tags.h)
  TranslateOptions translate;
  StreamOptions stream;
  std::string device = "auto";              // auto, cpu, cuda or cuda:N
  int threads = 1;                          // CPU intra-op threads
  Precision precision = Precision::float32; // int8: quantized products (kernels.h), CPU and native engine only
  std::string int8_products;                // with int8: which groups (inference_precision.h); empty: int8's default

  /// The products that run in int8: none for float32.
  InferencePrecision inference_precision() const;

  /// Checks the options (ConfigError naming the option) before anything is loaded, and asks the
  /// search for attention when an output needs it.
  void prepare();
};

/// Loads the checkpoint(s), builds the inference form (an ensemble for several) and streams the
/// input through a Translator.
StreamSummary run_translate_job(TranslateJob job);

}  // namespace nmt
