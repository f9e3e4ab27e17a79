#include "nmt/dist/communicator.h"

// c10d's headers declare Gloo (and NCCL) process groups only when these are defined; LibTorch
// itself was built with them (CMakeLists.txt defines them for this file alone).
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/cuda.h>
#ifdef NMT_HAVE_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>

#include "nmt/core/decimal_number.h"
#include "nmt/core/log.h"
#include "nmt/dist/heartbeat.h"
#include "nmt/dist/rendezvous.h"

namespace nmt {
namespace {

using Milliseconds = std::chrono::milliseconds;

bool is_loopback(const std::string& host) {
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "::1";
}

}  // namespace

bool dist_backend_available(DistBackend backend) {
#ifdef NMT_HAVE_NCCL
  (void)backend;
  return true;
#else
  return backend != DistBackend::nccl;
#endif
}

struct Communicator::Impl {
  RankInfo place;
  std::string key_prefix;  // "nmt/RUN_ID": this group's keys in the store
  c10::Device device{c10::kCPU};  // where collectives' tensors live (CUDA for NCCL)
  Milliseconds timeout{0};
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> gloo;
#ifdef NMT_HAVE_NCCL
  c10::intrusive_ptr<c10d::ProcessGroupNCCL> nccl;
#endif
  std::unique_ptr<Heartbeat> heartbeat;
  ~Impl() { heartbeat.reset(); }  // before the group and the store go
  // `tensor` where the backend wants it (CUDA for NCCL); copied back by `restore`.
  at::Tensor on_device(const at::Tensor& tensor) const {
    return tensor.device() == device ? tensor : tensor.to(device);
  }
  static void restore(at::Tensor& tensor, const at::Tensor& moved) {
    if (!moved.is_same(tensor)) tensor.copy_(moved);
  }
  // Calls f with whichever process group this run uses.
  template <class F>
  auto with_group(F&& f) {
#ifdef NMT_HAVE_NCCL
    if (nccl) return f(*nccl);
#endif
    return f(*gloo);
  }
};

struct Communicator::PendingSum::Impl {
  Communicator* owner;
  std::string what;
  std::vector<c10::intrusive_ptr<c10d::Work>> works;
};

Communicator::PendingSum::PendingSum(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Communicator::PendingSum::PendingSum(PendingSum&&) noexcept = default;
Communicator::PendingSum::~PendingSum() = default;

void Communicator::PendingSum::finish() {
  try {
    for (auto& work : impl_->works) work->wait();
  } catch (const std::exception& e) {
    impl_->owner->fail(impl_->what, reason_of(e));
  }
  impl_->works.clear();
}

Communicator::~Communicator() = default;

namespace {

// The backend a rank uses: NCCL needs a GPU of its own per rank; ranks that share one talk
// through Gloo. Throws DistError for a backend this LibTorch or this device cannot give.
DistBackend choose_backend(const RankInfo& place, DistBackend backend, const c10::Device& device) {
  const int gpus = device.is_cuda() ? static_cast<int>(torch::cuda::device_count()) : 0;
  const bool gpus_shared = device.is_cuda() && place.local_world_size > gpus;
  if (backend == DistBackend::automatic) {
    backend = device.is_cuda() && dist_backend_available(DistBackend::nccl) && !gpus_shared ? DistBackend::nccl
                                                                                            : DistBackend::gloo;
    if (device.is_cuda() && backend == DistBackend::gloo) {
      log().warn("dist.backend auto: {}; using gloo on {}",
                 gpus_shared ? std::to_string(place.local_world_size) + " ranks share " + std::to_string(gpus) +
                                   " GPU(s) on this machine and NCCL needs one each"
                             : std::string("this LibTorch has no NCCL"),
                 device.str());
    }
  }
  if (backend == DistBackend::nccl && gpus_shared && dist_backend_available(backend)) {
    throw DistError("dist.backend nccl needs a GPU per rank: " + std::to_string(place.local_world_size) +
                    " ranks on this machine, " + std::to_string(gpus) + " GPU(s); use dist.backend gloo");
  }
  if (!dist_backend_available(backend)) {
    throw DistError("dist.backend " + name_of(backend) +
                    " is not in this LibTorch (NCCL comes with CUDA builds of LibTorch); use dist.backend gloo");
  }
  if (backend == DistBackend::nccl && !device.is_cuda()) {
    throw DistError("dist.backend nccl needs a CUDA device, got device " + device.str() + "; use dist.backend gloo");
  }
  return backend;
}

}  // namespace

// The process group over the store, under this group's prefix: Gloo on the interface peers reach
// (GLOO_SOCKET_IFNAME's, the loopback for a one-machine group, else the address this machine's
// name resolves to: docs/distributed.md), or NCCL.
void Communicator::join_process_group(DistBackend backend) {
  Impl& impl = *impl_;
  const std::string master = impl.place.rendezvous();
  auto prefixed = c10::make_intrusive<c10d::PrefixStore>(impl.key_prefix + "/" + backend_name_, impl.store);
  try {
    if (backend == DistBackend::gloo) {
      auto options = c10d::ProcessGroupGloo::Options::create(impl.timeout);
      const char* interface = std::getenv("GLOO_SOCKET_IFNAME");
      if (interface != nullptr && *interface != '\0') {
        options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(interface));
      } else if (is_loopback(impl.place.master_addr) || !impl.place.store_file.empty()) {  // one machine
        options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
      } else {
        options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
      }
      options->threads = 2;
      impl.gloo = c10::make_intrusive<c10d::ProcessGroupGloo>(prefixed, rank_, world_size_, options);
    } else {
#ifdef NMT_HAVE_NCCL
      auto options = c10d::ProcessGroupNCCL::Options::create();
      options->timeout = impl.timeout;
      impl.nccl = c10::make_intrusive<c10d::ProcessGroupNCCL>(prefixed, rank_, world_size_, options);
#endif
    }
  } catch (const std::exception& e) {
    throw DistError("rank " + std::to_string(rank_) + " could not join the " + backend_name_ + " group at " + master +
                    ": " + reason_of(e));
  }
}

std::unique_ptr<Communicator> Communicator::connect(const RankInfo& place, DistBackend backend, c10::Device device,
                                                    double timeout_s) {
  backend = choose_backend(place, backend, device);
  std::unique_ptr<Communicator> comm(new Communicator());
  comm->impl_ = std::make_unique<Impl>();
  Impl& impl = *comm->impl_;
  impl.place = place;
  impl.device = backend == DistBackend::nccl ? device : c10::Device(c10::kCPU);
  impl.timeout = Milliseconds(static_cast<std::int64_t>(timeout_s * 1000));
  comm->rank_ = place.rank;
  comm->world_size_ = place.world_size;
  comm->backend_name_ = name_of(backend);
  impl.store = open_store(place, impl.timeout);
  // A launcher's run id (torchrun, and nmt's own supervisor, set it) keeps groups apart that reach
  // one store by mistake: they wait for keys that never come and fail within the timeout.
  const char* run_id = std::getenv("TORCHELASTIC_RUN_ID");
  impl.key_prefix = "nmt/" + std::string(run_id != nullptr ? run_id : "");
  // Every rank must count the same ranks before Gloo connects them: a WORLD_SIZE that differs
  // between ranks otherwise ends in Gloo's own message, or a wait for a rank that never comes.
  const std::string size_key = impl.key_prefix + "/world_size";
  if (place.rank == 0) {
    const std::string size = std::to_string(place.world_size);
    impl.store->set(size_key, std::vector<std::uint8_t>(size.begin(), size.end()));
  } else {
    std::vector<std::uint8_t> value;
    try {
      value = impl.store->get(size_key);
    } catch (const std::exception& e) {
      throw DistError("rank " + std::to_string(place.rank) + " got no group size from rank 0 at " +
                      place.rendezvous() + ": " + reason_of(e));
    }
    const std::string rank0_size(value.begin(), value.end());
    if (rank0_size != std::to_string(place.world_size)) {
      throw DistError("rank " + std::to_string(place.rank) + " counts " + std::to_string(place.world_size) +
                      " ranks (WORLD_SIZE or dist.nnodes x dist.nproc-per-node), rank 0 counts " +
                      shown_text(rank0_size, 6) +
                      ": start every rank with the same group size");
    }
  }
  comm->join_process_group(backend);
  try {
    impl.heartbeat = std::make_unique<Heartbeat>(store_client(place, Milliseconds(3000)),
                                                 impl.key_prefix + "/beat/" + std::to_string(place.rank));
  } catch (const std::exception& e) {
    throw DistError("rank " + std::to_string(place.rank) + " lost the store at " + place.rendezvous() + ": " +
                    reason_of(e));
  }
  // One collective before anything else: every rank is connected to every other one.
  comm->barrier("joining the group");
  return comm;
}

void Communicator::fail(const std::string& what, const std::string& reason) {
  throw DistError("rank " + std::to_string(rank_) + ": " + what + " failed (" + reason + "); " + roll_call());
}

std::string Communicator::roll_call() { return nmt::roll_call(impl_->place, impl_->key_prefix + "/beat/"); }

void Communicator::broadcast(std::vector<at::Tensor> tensors, int root, const std::string& what) {
  if (world_size_ == 1) return;
  try {
    for (auto& tensor : tensors) {
      std::vector<at::Tensor> one{impl_->on_device(tensor)};
      c10d::BroadcastOptions options;
      options.rootRank = root;
      impl_->with_group([&](auto& group) { return group.broadcast(one, options); })->wait();
      Impl::restore(tensor, one[0]);
    }
  } catch (const DistError&) {
    throw;
  } catch (const std::exception& e) {
    fail(what, reason_of(e));
  }
}

void Communicator::all_reduce_sum(at::Tensor tensor, const std::string& what) {
  at::Tensor moved = impl_->on_device(tensor);
  start_all_reduce_sum({moved}, what).finish();
  Impl::restore(tensor, moved);
}

void Communicator::all_reduce_max(at::Tensor tensor, const std::string& what) {
  if (world_size_ == 1) return;
  try {
    std::vector<at::Tensor> one{impl_->on_device(tensor)};
    c10d::AllreduceOptions options;
    options.reduceOp = c10d::ReduceOp::MAX;
    impl_->with_group([&](auto& group) { return group.allreduce(one, options); })->wait();
    Impl::restore(tensor, one[0]);
  } catch (const std::exception& e) {
    fail(what, reason_of(e));
  }
}

// The tensors must be on the backend's device (CUDA for NCCL): GradientSync's buckets are.
Communicator::PendingSum Communicator::start_all_reduce_sum(std::vector<at::Tensor> tensors, const std::string& what) {
  auto pending = std::make_unique<PendingSum::Impl>();
  pending->owner = this;
  pending->what = what;
  if (world_size_ > 1) {
    try {
      for (auto& tensor : tensors) {
        std::vector<at::Tensor> one{tensor};
        pending->works.push_back(impl_->with_group([&](auto& group) { return group.allreduce(one); }));
      }
    } catch (const std::exception& e) {
      fail(what, reason_of(e));
    }
  }
  return PendingSum(std::move(pending));
}

at::Tensor Communicator::all_gather(const at::Tensor& tensor, const std::string& what) {
  const at::Tensor input = impl_->on_device(tensor.contiguous());
  if (world_size_ == 1) return input.unsqueeze(0).clone().to(tensor.device());
  std::vector<at::Tensor> outputs;
  for (int r = 0; r < world_size_; ++r) outputs.push_back(at::empty_like(input));
  try {
    std::vector<std::vector<at::Tensor>> output_lists{outputs};
    std::vector<at::Tensor> inputs{input};
    impl_->with_group([&](auto& group) { return group.allgather(output_lists, inputs); })->wait();
    outputs = output_lists[0];
  } catch (const std::exception& e) {
    fail(what, reason_of(e));
  }
  return at::stack(outputs).to(tensor.device());
}

std::string Communicator::broadcast_bytes(const std::string& bytes, int root, const std::string& what) {
  if (world_size_ == 1) return bytes;
  at::Tensor size = at::tensor({static_cast<std::int64_t>(bytes.size())}, at::kLong).to(impl_->device);
  broadcast({size}, root, what);
  const std::int64_t n = size.item<std::int64_t>();
  at::Tensor data = at::empty({n}, at::kByte);
  if (rank_ == root) std::copy(bytes.begin(), bytes.end(), data.data_ptr<std::uint8_t>());
  if (n > 0) {
    at::Tensor on_device = data.to(impl_->device);
    broadcast({on_device}, root, what);
    data = on_device.cpu();
  }
  return std::string(reinterpret_cast<const char*>(data.data_ptr<std::uint8_t>()), static_cast<std::size_t>(n));
}

void Communicator::barrier(const std::string& what) {
  if (world_size_ == 1) return;
  // A one-element all-reduce: c10d's Gloo barrier has no timeout of its own in every version.
  all_reduce_sum(at::zeros({1}, at::TensorOptions(at::kFloat).device(impl_->device)), what);
}

}  // namespace nmt
