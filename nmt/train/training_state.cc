#include "nmt/train/training_state.h"

#include <ATen/Context.h>
#include <torch/cuda.h>
#include <torch/serialize/input-archive.h>
#include <torch/serialize/output-archive.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "nmt/core/error.h"
#include "nmt/core/torch_error.h"
#include "nmt/core/file_io.h"
#include "nmt/core/verified_archive.h"
#include "nmt/train/optimizer.h"

namespace nmt {
namespace {

// 2: adds "digests" (nmt/core/verified_archive.h), verified on load; version 1 still loads, unverified.
// 3: adds "target_tokens", "world_size" and the other ranks' generators "cpu_rng_rank_R" (data-
//    parallel runs); 1 and 2 load as a one-process run that has not counted its tokens.
// 4: adds "ema_decay" and, with a moving average of the weights, the raw weights "raw_weight_I"
//    (I = 0, 1, ...) named by the lines of "raw_weight_names"; 1 to 3 load as runs without one.
constexpr std::int64_t kStateFormatVersion = 4;

void write_int(torch::serialize::OutputArchive& archive, const char* key, std::int64_t value) {
  archive.write(key, c10::IValue(value));
}

/// The default generator of every device whose random state a checkpoint keeps: the CPU's, then
/// each CUDA device's, keyed by its archive name. Context::defaultGenerator(Device) exists in
/// LibTorch 1.13 and 2.x alike (the CUDA hooks' getDefaultCUDAGenerator does not in 2.x).
std::vector<std::pair<std::string, at::Generator>> default_generators() {
  std::vector<std::pair<std::string, at::Generator>> generators{
      {"cpu_rng", at::globalContext().defaultGenerator(c10::Device(c10::kCPU))}};
  if (torch::cuda::is_available()) {
    const auto devices = static_cast<c10::DeviceIndex>(torch::cuda::device_count());
    for (c10::DeviceIndex i = 0; i < devices; ++i) {
      generators.emplace_back("cuda_rng_" + std::to_string(i),
                              at::globalContext().defaultGenerator(c10::Device(c10::kCUDA, i)));
    }
  }
  return generators;
}

TrainingState read_training_state(const std::string& path, const std::string& bytes, torch::optim::Optimizer& optimizer);

std::string rank_generator_key(std::size_t rank) { return "cpu_rng_rank_" + std::to_string(rank); }
std::string raw_weight_key(std::size_t index) { return "raw_weight_" + std::to_string(index); }

}  // namespace

void save_training_state(const std::string& path, const TrainingState& state, torch::optim::Optimizer& optimizer) {
  torch::serialize::OutputArchive archive;
  write_int(archive, "format_version", kStateFormatVersion);
  write_int(archive, "step", state.step);
  archive.write("position", c10::IValue(state.position.to_json()));
  archive.write("schedule", c10::IValue(state.schedule_json));
  archive.write("best_metric", c10::IValue(state.best_metric));
  write_int(archive, "validations", state.validations);
  write_int(archive, "bad_validations", state.bad_validations);
  write_int(archive, "skipped_batches", state.skipped_batches);
  archive.write("elapsed_seconds", c10::IValue(state.elapsed_seconds));
  write_int(archive, "target_tokens", state.target_tokens);
  write_int(archive, "world_size", state.world_size);
  for (std::size_t r = 0; r < state.rank_generator_states.size(); ++r) {
    archive.write(rank_generator_key(r + 1), state.rank_generator_states[r], /*is_buffer=*/true);
  }
  archive.write("ema_decay", c10::IValue(state.ema_decay));
  std::string names;
  for (std::size_t i = 0; i < state.raw_weights.size(); ++i) {
    names += state.raw_weights[i].first + "\n";
    archive.write(raw_weight_key(i), state.raw_weights[i].second.cpu(), /*is_buffer=*/true);
  }
  archive.write("raw_weight_names", c10::IValue(names));
  for (auto& [key, generator] : default_generators()) {
    std::lock_guard<std::mutex> lock(generator.mutex());
    archive.write(key, generator.get_state(), /*is_buffer=*/true);
  }
  torch::serialize::OutputArchive optimizer_archive;
  optimizer.save(optimizer_archive);
  archive.write("optimizer", optimizer_archive);
  write_file_atomic(path, serialize_with_digests(archive));
}

TrainingState load_training_state(const std::string& path, torch::optim::Optimizer& optimizer) {
  return load_training_state_from_bytes(read_archive_file(path, "training state"), path, optimizer);
}

TrainingState load_training_state_from_bytes(const std::string& bytes, const std::string& path,
                                             torch::optim::Optimizer& optimizer) {
  return read_archive_reporting_damage("training state", path,
                                       [&] { return read_training_state(path, bytes, optimizer); });
}

namespace {

TrainingState read_training_state(const std::string& path, const std::string& bytes, torch::optim::Optimizer& optimizer) {
  torch::serialize::InputArchive archive;
  load_archive_from_bytes(archive, bytes, path, "training state");
  const ArchiveReader reader(archive, "training state", path);
  const std::int64_t format = reader.integer("format_version");
  if (format < 1 || format > kStateFormatVersion) {
    throw DataError("training state " + path + " has format version " + std::to_string(format) + ", this nmt reads 1 to " +
                    std::to_string(kStateFormatVersion));
  }
  if (!verify_digests(archive, path, "training state") && format >= 2) {
    throw DataError("training state " + path + " is damaged: its table of checksums is missing");
  }
  TrainingState state;
  state.step = reader.integer("step");
  state.position = BatchPosition::from_json(reader.string("position"));
  state.schedule_json = reader.string("schedule");
  state.best_metric = reader.real("best_metric");
  state.validations = reader.integer("validations");
  state.bad_validations = reader.integer("bad_validations");
  state.skipped_batches = reader.integer("skipped_batches");
  state.elapsed_seconds = reader.real("elapsed_seconds");
  if (format >= 3) {
    state.target_tokens = reader.integer("target_tokens");
    state.world_size = reader.integer("world_size");
    if (state.world_size < 1 || state.world_size > 65536) {
      reader.fail("world_size " + std::to_string(state.world_size) + " out of range");
    }
    for (std::int64_t r = 1; r < state.world_size; ++r) {
      at::Tensor generator_state;
      if (!reader.try_tensor(rank_generator_key(static_cast<std::size_t>(r)), generator_state)) {
        reader.fail("no " + rank_generator_key(static_cast<std::size_t>(r)) + " for its " +
                    std::to_string(state.world_size) + " ranks");
      }
      state.rank_generator_states.push_back(generator_state);
    }
  }
  if (format >= 4) {
    state.ema_decay = reader.real("ema_decay");
    const std::string names = reader.string("raw_weight_names");
    std::size_t start = 0;
    for (std::size_t end; (end = names.find('\n', start)) != std::string::npos; start = end + 1) {
      at::Tensor weight;
      const std::string key = raw_weight_key(state.raw_weights.size());
      if (!reader.try_tensor(key, weight)) reader.fail("no " + key + " (" + names.substr(start, end - start) + ")");
      state.raw_weights.emplace_back(names.substr(start, end - start), weight);
    }
  }
  torch::serialize::InputArchive optimizer_archive;
  if (!archive.try_read("optimizer", optimizer_archive)) reader.fail("no optimizer state");
  try {
    optimizer.load(optimizer_archive);
    move_state_to_parameters_device(optimizer);  // the file's tensors come in on the CPU
  } catch (const c10::Error& e) {
    reader.fail("optimizer state does not fit the model: " + first_line(e));
  }
  // The CPU's state is required; a CUDA device's is restored when the file has it (a run may
  // resume on a machine with more devices than it was saved on).
  for (auto& [key, generator] : default_generators()) {
    at::Tensor rng_state;
    if (!reader.try_tensor(key, rng_state)) {
      if (key == "cpu_rng") reader.fail("no cpu_rng");
      continue;
    }
    std::lock_guard<std::mutex> lock(generator.mutex());
    generator.set_state(rng_state);
  }
  return state;
}

}  // namespace

}  // namespace nmt
