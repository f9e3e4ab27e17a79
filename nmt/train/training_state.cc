#include "nmt/train/training_state.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>
#include <torch/serialize/input-archive.h>
#include <torch/serialize/output-archive.h>

#include <filesystem>

#include "nmt/core/error.h"
#include "nmt/core/file_io.h"

namespace nmt {
namespace {

constexpr std::int64_t kStateFormatVersion = 1;

void write_int(torch::serialize::OutputArchive& archive, const char* key, std::int64_t value) {
  archive.write(key, c10::IValue(value));
}

std::int64_t read_int(torch::serialize::InputArchive& archive, const char* key, const std::string& path) {
  c10::IValue value;
  if (!archive.try_read(key, value) || !value.isInt()) throw DataError("training state " + path + ": no '" + key + "'");
  return value.toInt();
}

double read_double(torch::serialize::InputArchive& archive, const char* key, const std::string& path) {
  c10::IValue value;
  if (!archive.try_read(key, value) || !value.isDouble()) throw DataError("training state " + path + ": no '" + key + "'");
  return value.toDouble();
}

std::string read_string(torch::serialize::InputArchive& archive, const char* key, const std::string& path) {
  c10::IValue value;
  if (!archive.try_read(key, value) || !value.isString()) throw DataError("training state " + path + ": no '" + key + "'");
  return value.toStringRef();
}

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
  {
    auto generator = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(generator.mutex());
    archive.write("cpu_rng", generator.get_state(), /*is_buffer=*/true);
  }
  if (at::globalContext().hasCUDA()) {
    for (c10::DeviceIndex i = 0; i < static_cast<c10::DeviceIndex>(at::detail::getCUDAHooks().getNumGPUs()); ++i) {
      auto generator = at::detail::getCUDAHooks().getDefaultCUDAGenerator(i);
      std::lock_guard<std::mutex> lock(generator.mutex());
      archive.write("cuda_rng_" + std::to_string(i), generator.get_state(), /*is_buffer=*/true);
    }
  }
  torch::serialize::OutputArchive optimizer_archive;
  optimizer.save(optimizer_archive);
  archive.write("optimizer", optimizer_archive);
  std::string bytes;
  archive.save_to([&bytes](const void* data, std::size_t size) {
    bytes.append(static_cast<const char*>(data), size);
    return size;
  });
  write_file_atomic(path, bytes);
}

TrainingState load_training_state(const std::string& path, torch::optim::Optimizer& optimizer) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw IoError("cannot open training state " + path + ": no such file");
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(path);
  } catch (const c10::Error& e) {
    const std::string what = e.what_without_backtrace();
    throw DataError("training state " + path + " is not a readable TorchScript archive: " + what.substr(0, what.find('\n')));
  }
  if (read_int(archive, "format_version", path) != kStateFormatVersion) {
    throw DataError("training state " + path + " has an unsupported format version");
  }
  TrainingState state;
  state.step = read_int(archive, "step", path);
  state.position = BatchPosition::from_json(read_string(archive, "position", path));
  state.schedule_json = read_string(archive, "schedule", path);
  state.best_metric = read_double(archive, "best_metric", path);
  state.validations = read_int(archive, "validations", path);
  state.bad_validations = read_int(archive, "bad_validations", path);
  state.skipped_batches = read_int(archive, "skipped_batches", path);
  state.elapsed_seconds = read_double(archive, "elapsed_seconds", path);
  torch::serialize::InputArchive optimizer_archive;
  if (!archive.try_read("optimizer", optimizer_archive)) throw DataError("training state " + path + ": no optimizer state");
  try {
    optimizer.load(optimizer_archive);
  } catch (const c10::Error& e) {
    const std::string what = e.what_without_backtrace();
    throw DataError("training state " + path + ": optimizer state does not fit the model: " + what.substr(0, what.find('\n')));
  }
  at::Tensor cpu_rng;
  if (!archive.try_read("cpu_rng", cpu_rng, /*is_buffer=*/true)) throw DataError("training state " + path + ": no cpu_rng");
  {
    auto generator = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(generator.mutex());
    generator.set_state(cpu_rng);
  }
  if (at::globalContext().hasCUDA()) {
    for (c10::DeviceIndex i = 0; i < static_cast<c10::DeviceIndex>(at::detail::getCUDAHooks().getNumGPUs()); ++i) {
      at::Tensor cuda_rng;
      if (archive.try_read("cuda_rng_" + std::to_string(i), cuda_rng, /*is_buffer=*/true)) {
        auto generator = at::detail::getCUDAHooks().getDefaultCUDAGenerator(i);
        std::lock_guard<std::mutex> lock(generator.mutex());
        generator.set_state(cuda_rng);
      }
    }
  }
  return state;
}

}  // namespace nmt
