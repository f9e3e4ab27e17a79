// Checkpoints: one self-contained TorchScript archive per model (docs/checkpoints.md).
// Readable by torch::jit::load in C++ and torch.jit.load in Python.
#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <string>

#include "nmt/data/tokenizer.h"
#include "nmt/model/seq2seq.h"

namespace nmt {

/// Version of the archive layout this build writes. Bump it when names or meanings change.
/// 2: adds "digests" (SHA-256 of every entry, verified on load). Version 1 files still load, unverified.
/// 3: adds the TorchScript methods (encode, step, score, greedy, beam_search) and the attributes they
/// read; the digests cover their code. Versions 1 and 2 still load.
constexpr std::int64_t kCheckpointFormatVersion = 3;

struct Checkpoint {
  Seq2Seq model{nullptr};
  Tokenizer source_tokenizer;
  Tokenizer target_tokenizer;
  std::string training_config;  // the effective training configuration as written (may be empty)
  std::string toolkit_version;  // of the nmt that wrote the file
};

/// Writes model parameters, config, both tokenizers and metadata to `path` atomically.
/// Throws ConfigError if the tokenizers' vocabulary sizes do not match the model; IoError on write.
void save_checkpoint(const std::string& path, Seq2Seq& model, const Tokenizer& source_tokenizer,
                     const Tokenizer& target_tokenizer, const std::string& training_config = "");

/// Reads a checkpoint onto `device`. Every problem is a one-line IoError or DataError naming the
/// file: unreadable, damaged (an entry that does not match its checksum) or foreign files,
/// unsupported format versions, a config that does not parse, and parameters that are missing,
/// unexpected or of the wrong shape (all listed).
Checkpoint load_checkpoint(const std::string& path, const c10::Device& device = c10::Device(c10::kCPU));

/// The same from the file's bytes, read elsewhere (rank 0 of a training group reads a checkpoint
/// and sends it to the other ranks); `path` names it in messages.
Checkpoint load_checkpoint_from_bytes(const std::string& bytes, const std::string& path,
                                      const c10::Device& device = c10::Device(c10::kCPU));

/// Reads the checkpoint `input` (any format this build reads, verified) and writes it to `output` in
/// the current format (parameters, subword models and training configuration unchanged; the
/// methods added), atomically. Refuses, before reading, an `output` that exists unless `replace`
/// (which may be `input` itself); IoError or DataError naming the file.
void upgrade_checkpoint(const std::string& input, const std::string& output, bool replace = false);

}  // namespace nmt
