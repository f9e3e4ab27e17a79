// Fuzz target: reading a checkpoint (nmt/model/checkpoint.h, load_checkpoint) from arbitrary bytes.
//
// Input: the file. Seeds: the tiniest checkpoints that load (make_seeds.cc), about 20 KB each, in
// the current format (SHA-256 of every entry) and in format 1 (no checksums: mutated strings and
// tensors get past the digest check to the config parser and the model's shape checks).
// load_checkpoint documents that every problem is an IoError or DataError naming the file; anything
// else escaping it (c10::Error, std::bad_alloc, ...) is a finding, as are crashes. A checkpoint that
// loads must hold a model whose vocabularies match its tokenizers, and (format 3) load as a
// scripted model too (its code compiled by torch::jit::load) with the same vocabulary.
#include <cstddef>
#include <cstdint>

#include "nmt/core/error.h"
#include "nmt/core/logging.h"
#include "nmt/model/checkpoint.h"
#include "nmt/model/scripted_model.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static nmt::fuzz::MemoryFile file("fuzz-checkpoint");
  static const bool quiet = (nmt::set_log_level(nmt::LogLevel::off), true);  // format 1 files warn on every load
  (void)quiet;
  file.set(nmt::fuzz::as_view(data, size));
  try {
    const nmt::Checkpoint checkpoint = nmt::load_checkpoint(file.path());
    const auto& config = checkpoint.model->config();
    FUZZ_CHECK(checkpoint.source_tokenizer.vocab_size() == config.source_vocab_size, "source vocabulary");
    FUZZ_CHECK(checkpoint.target_tokenizer.vocab_size() == config.target_vocab_size, "target vocabulary");
    try {
      const nmt::ScriptedModel scripted = nmt::load_scripted_model(file.path(), c10::Device(c10::kCPU));
      FUZZ_CHECK(scripted.decoder->target_vocab_size() == config.target_vocab_size, "scripted vocabulary");
    } catch (const nmt::DataError&) {  // formats 1 and 2 have no methods
    }
  } catch (const nmt::Error&) {
  } catch (const std::exception& e) {
    FUZZ_UNEXPECTED("load_checkpoint", e);
  }
  return 0;
}
