// What reading a checkpoint costs now that format 3 carries TorchScript methods (docs/checkpoints.md,
// "Loading without compiling"): the native reader (load_checkpoint, values only), the same file
// through torch::jit::load (what compiling the methods adds: the script engine's load), and a
// format 2 copy of the same model (no methods, as nmt wrote before) through load_checkpoint. Medians
// of --runs loads in this process, after one warm-up each.
//
//   build/bench/bench_checkpoint_load CHECKPOINT [--runs 15] [--write-format2 OLD.pt]
//
// --write-format2 keeps the format 2 copy (for the programs of an older nmt, which read 1 to 2:
// scripts/bench_script_engine.sh times their first translation on it).
#include <torch/csrc/jit/serialization/import.h>
#include <torch/serialize/input-archive.h>
#include <torch/serialize/output-archive.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "nmt/core/file_io.h"
#include "nmt/core/logging.h"
#include "nmt/core/verified_archive.h"
#include "nmt/model/checkpoint.h"
#include "nmt/model/scripted_model.h"

namespace {

// Format 2's entries copied from a format 3 file: everything but the methods, the attributes they
// read, and the digests (recomputed).
void copy_format2(torch::serialize::InputArchive& in, torch::serialize::OutputArchive& out, bool top) {
  static const std::vector<std::string> format3_only = {"digests", "pad_id", "unk_id", "bos_id", "eos_id",
                                                        "source_vocab_size", "target_vocab_size", "has_attention"};
  for (const auto& key : in.keys()) {
    if (top && std::find(format3_only.begin(), format3_only.end(), key) != format3_only.end()) continue;
    torch::serialize::InputArchive child_in;
    if (in.try_read(key, child_in)) {
      torch::serialize::OutputArchive child_out;
      copy_format2(child_in, child_out, false);
      out.write(key, child_out);
      continue;
    }
    at::Tensor tensor;
    if (in.try_read(key, tensor) || in.try_read(key, tensor, /*is_buffer=*/true)) {
      out.write(key, tensor, /*is_buffer=*/tensor.scalar_type() == at::kByte);
      continue;
    }
    c10::IValue value;
    if (in.try_read(key, value)) out.write(key, top && key == "format_version" ? c10::IValue(std::int64_t{2}) : value);
  }
}

double median_seconds(int runs, const std::function<void()>& load) {
  load();  // warm-up: the file in the page cache, LibTorch's first-use costs
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    nmt::bench::Stopwatch watch;
    load();
    times.push_back(watch.seconds());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Checkpoint load times: native reader, torch::jit::load (methods compiled), a format 2 copy"};
  std::string checkpoint, format2_out;
  int runs = 15;
  app.add_option("checkpoint", checkpoint, "A format 3 checkpoint")->required()->check(CLI::ExistingFile);
  app.add_option("--runs", runs, "Timed loads per reader")->capture_default_str()->check(CLI::Range(1, 1000));
  app.add_option("--write-format2", format2_out, "Keep the format 2 copy here");
  CLI11_PARSE(app, argc, argv);
  nmt::set_log_level(nmt::LogLevel::warn);

  torch::serialize::InputArchive in;
  in.load_from(checkpoint, at::kCPU);
  torch::serialize::OutputArchive out;
  copy_format2(in, out, true);
  const std::string format2 =
      format2_out.empty() ? (std::filesystem::temp_directory_path() / "bench-checkpoint-format2.pt").string() : format2_out;
  nmt::write_file_atomic(format2, nmt::serialize_with_digests(out));

  const c10::Device cpu(c10::kCPU);
  const double native = median_seconds(runs, [&] { nmt::load_checkpoint(checkpoint, cpu); });
  const double old_format = median_seconds(runs, [&] { nmt::load_checkpoint(format2, cpu); });
  const double input_archive = median_seconds(runs, [&] {
    torch::serialize::InputArchive archive;  // what nmt 0.1 read checkpoints with (torch::jit::load)
    archive.load_from(format2, at::kCPU);
  });
  const double jit = median_seconds(runs, [&] { torch::jit::load(checkpoint, cpu); });
  const double scripted = median_seconds(runs, [&] { nmt::load_scripted_model(checkpoint, cpu); });
  std::printf("%s: %.1f MB, medians of %d loads\n", checkpoint.c_str(),
              static_cast<double>(std::filesystem::file_size(checkpoint)) / 1e6, runs);
  std::printf("  load_checkpoint, format 3 (values only, no code compiled) %8.1f ms\n", native * 1e3);
  std::printf("  load_checkpoint, the same model in format 2               %8.1f ms\n", old_format * 1e3);
  std::printf("  InputArchive (nmt 0.1's parse, no checks), format 2      %8.1f ms\n", input_archive * 1e3);
  std::printf("  torch::jit::load, format 3 (methods compiled)             %8.1f ms\n", jit * 1e3);
  std::printf("  load_scripted_model, format 3 (jit::load + digests)       %8.1f ms\n", scripted * 1e3);
  if (format2_out.empty()) std::filesystem::remove(format2);
  return 0;
}
