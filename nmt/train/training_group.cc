#include "nmt/train/training_group.h"

#include <ATen/ATen.h>
#include <ATen/Context.h>
#include <torch/cuda.h>

#include <csignal>
#include <exception>
#include <mutex>

#include "nmt/core/device.h"
#include "nmt/core/error.h"
#include "nmt/core/log.h"
#include "nmt/core/logging.h"
#include "nmt/dist/communicator.h"

namespace nmt {
namespace {

// The dropout generator's seed of rank r > 0 (rank 0 keeps the run's seed, as one process would).
std::uint64_t rank_seed(std::uint64_t seed, int rank) {
  return seed ^ (0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(rank));
}

}  // namespace

at::Tensor cpu_generator_state() {
  at::Generator generator = at::globalContext().defaultGenerator(c10::Device(c10::kCPU));
  std::lock_guard<std::mutex> lock(generator.mutex());
  return generator.get_state();
}

void set_cpu_generator_state(const at::Tensor& state) {
  at::Generator generator = at::globalContext().defaultGenerator(c10::Device(c10::kCPU));
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_state(state);
}

TrainingGroup::TrainingGroup(const RankInfo& place, const TrainConfig& config) : place_(place) {
  if (!place_.distributed()) return;
  set_log_tag("rank " + std::to_string(place_.rank));
  if (!lead() && log_level() < LogLevel::warn) set_log_level(LogLevel::warn);  // rank 0 reports
  const c10::Device wanted = parse_device(config.device);
  log().info("joining a group of {} ranks ({}) at {}:{}", place_.world_size, place_.source, place_.master_addr,
             place_.master_port);
  comm_ = Communicator::connect(place_, config.dist.backend, wanted, config.dist.timeout_s);
  log().info("group of {} ranks joined, backend {}", place_.world_size, comm_->backend_name());
}

TrainingGroup::~TrainingGroup() = default;

c10::Device TrainingGroup::device(const std::string& option) const {
  const c10::Device device = parse_device(option);
  if (place_.distributed() && device.is_cuda() && option.find(':') == std::string::npos &&
      torch::cuda::device_count() > 0) {
    return c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(place_.local_rank % torch::cuda::device_count()));
  }
  return device;
}

void TrainingGroup::phase(const std::string& what, const std::function<void()>& work) {
  std::exception_ptr error;
  try {
    work();
  } catch (...) {
    error = std::current_exception();
  }
  if (comm_) {
    const at::Tensor failed = comm_->all_gather(at::tensor({error ? 1L : 0L}, at::kLong), what);
    if (!error) {
      for (int r = 0; r < place_.world_size; ++r) {
        if (failed[r].item<std::int64_t>() != 0) {
          throw DistError("rank " + std::to_string(r) + " failed while " + what + " (its error says why); stopping");
        }
      }
    }
  }
  if (error) std::rethrow_exception(error);
}

std::string TrainingGroup::from_lead(std::string bytes, const std::string& what) {
  return comm_ ? comm_->broadcast_bytes(bytes, 0, what) : bytes;
}

void TrainingGroup::from_lead(std::vector<at::Tensor> tensors, const std::string& what) {
  if (comm_) comm_->broadcast(std::move(tensors), 0, what);
}

void TrainingGroup::check_same_setup(const TrainConfig& config, std::uint64_t data_fingerprint, std::size_t pairs) {
  if (!comm_) return;
  const auto digests = shared_setup_digests(config);
  std::vector<std::int64_t> mine;
  for (const auto& [section, digest] : digests) mine.push_back(static_cast<std::int64_t>(digest));
  mine.push_back(static_cast<std::int64_t>(data_fingerprint & 0x7FFFFFFFFFFFFFFFull));
  mine.push_back(static_cast<std::int64_t>(pairs));
  const at::Tensor all = comm_->all_gather(at::tensor(mine, at::kLong), "comparing options and data");
  const auto data = static_cast<std::int64_t>(digests.size());
  for (int r = 1; r < place_.world_size; ++r) {
    for (std::int64_t i = 0; i < data; ++i) {
      if (all[r][i].item<std::int64_t>() == all[0][i].item<std::int64_t>()) continue;
      const std::string& section = digests[static_cast<std::size_t>(i)].first;
      throw ConfigError("rank " + std::to_string(r) + "'s " +
                        (section.empty() ? std::string("top-level options (or --resume)") : "[" + section + "] options") +
                        " differ from rank 0's: every option but run-dir, threads, blas-threads, [dist] and the data "
                        "paths must be the same on every rank");
    }
    if (all[r][data].item<std::int64_t>() != all[0][data].item<std::int64_t>()) {
      throw ConfigError("rank " + std::to_string(r) + "'s training data differ from rank 0's (" +
                        std::to_string(all[r][data + 1].item<std::int64_t>()) + " vs " +
                        std::to_string(all[0][data + 1].item<std::int64_t>()) +
                        " pairs after filtering, and other subwords): " +
                        "data.train-source and data.train-target (or data.corpus's files) must be the same files "
                        "on every machine");
    }
  }
}

// One small sum carries what the ranks must agree on: the loss, whether any rank was asked to
// stop, and rank 0's clock (train.max-minutes) and gradient norm. Ranks with other thread counts
// or CPUs could sum the norm in another order; one clip factor keeps them identical.
StepAgreement TrainingGroup::agree_on_step(double loss, double nll, double elapsed, int signal, double norm) {
  if (!comm_) return {loss, nll, elapsed, signal, norm};
  at::Tensor shared = at::tensor({loss, nll, lead() ? elapsed : 0.0, signal == SIGINT ? 1.0 : 0.0,
                                  signal == SIGTERM ? 1.0 : 0.0, lead() ? norm : 0.0},
                                 at::kDouble);
  comm_->all_reduce_sum(shared, "summing the step's loss");
  StepAgreement agreed;
  agreed.loss = shared[0].item<double>();
  agreed.nll = shared[1].item<double>();
  agreed.elapsed = shared[2].item<double>();
  agreed.signal = shared[3].item<double>() > 0 ? SIGINT : shared[4].item<double>() > 0 ? SIGTERM : 0;
  agreed.norm = shared[5].item<double>();
  return agreed;
}

std::optional<TokenizerPair> TrainingGroup::tokenizers_from_lead(const Tokenizer* source, const Tokenizer* target,
                                                                 const DataOptions& data) {
  if (!comm_) return std::nullopt;
  // Both models, always: whether they are one is rank 0's knowledge (with init-from the options
  // name neither, and a checkpoint may hold two).
  const std::string source_bytes = from_lead(lead() ? source->model_bytes() : "", "sending the subword models");
  const std::string target_bytes = from_lead(lead() ? target->model_bytes() : "", "sending the subword models");
  if (lead()) return std::nullopt;
  const auto name = [](const std::string& path, const char* side) {
    return (path.empty() ? std::string("the ") + side + " subword model" : path) + " (from rank 0)";
  };
  Tokenizer from_rank0 = Tokenizer::from_bytes(source_bytes, name(data.source_spm, "source"));
  Tokenizer target_from_rank0 = target_bytes == source_bytes
                                    ? from_rank0
                                    : Tokenizer::from_bytes(target_bytes, name(data.target_spm, "target"));
  return TokenizerPair{std::move(from_rank0), std::move(target_from_rank0)};
}

std::vector<at::Tensor> TrainingGroup::gather_generator_states() {
  std::vector<at::Tensor> out;
  if (!comm_) return out;
  const at::Tensor states = comm_->all_gather(cpu_generator_state(), "gathering the ranks' generator states");
  for (int r = 1; r < place_.world_size; ++r) out.push_back(states[r].clone());
  return out;
}

void TrainingGroup::start_own_dropout(std::uint64_t seed) {
  if (!lead()) at::manual_seed(rank_seed(seed, place_.rank));
}

void TrainingGroup::restore_own_dropout(const TrainingState& saved, const TrainConfig& config,
                                        const c10::Device& device, const std::string& path) {
  if (lead()) {  // load_training_state restored rank 0's generators
    if (saved.world_size != size()) {
      log().warn("{} was written by a run of {} rank(s) and continues with {}: a step now takes {} x {} batches "
                 "(was {} x {}) and dropout differs from an uninterrupted run",
                 path, saved.world_size, size(), size(), config.train.accumulate, saved.world_size,
                 config.train.accumulate);
    }
    return;
  }
  const std::uint64_t seed = config.seed;
  const std::int64_t step = saved.step;
  const auto index = static_cast<std::size_t>(place_.rank - 1);
  if (index < saved.rank_generator_states.size()) {
    set_cpu_generator_state(saved.rank_generator_states[index]);
  } else {
    at::manual_seed(rank_seed(seed ^ static_cast<std::uint64_t>(step), place_.rank));
  }
  // The training state holds rank 0's CUDA generators only (gathering CUDA states is not yet
  // done): another rank on CUDA draws afresh rather than replay rank 0's stream.
  if (device.is_cuda()) {
    at::Generator cuda = at::globalContext().defaultGenerator(device);
    std::lock_guard<std::mutex> lock(cuda.mutex());
    cuda.set_current_seed(rank_seed(seed ^ static_cast<std::uint64_t>(step), place_.rank));
  }
}

}  // namespace nmt
