// The process group of a data-parallel run: c10d's TCPStore for the rendezvous and
// ProcessGroupGloo (CPU) or ProcessGroupNCCL (CUDA) for the collectives. No transport of our own.
//
// Every collective is bounded by the group's timeout; a failure (a rank died, hung, or the
// network broke) becomes one DistError naming the ranks that no longer answer, found by a short
// roll call through the store (docs/distributed.md, "Stopping and failures").
#pragma once

#include <ATen/ATen.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nmt/core/error.h"
#include "nmt/dist/dist_options.h"

namespace nmt {

/// A collective or the rendezvous failed. One line: what was being done, why, and which ranks.
class DistError : public Error {
 public:
  using Error::Error;
};

/// Whether this LibTorch has the backend (NCCL exists only in CUDA builds with c10d NCCL).
bool dist_backend_available(DistBackend backend);

/// Why c10d's TCPStore server could not start, from its message: the one place that reads c10d's
/// English (tests/dist/communicator_test.cc pins it to the LibTorch we build with).
enum class StoreServerFailure { port_in_use, ranks_missing, other };
StoreServerFailure classify_store_server_failure(const std::string& message);

class Communicator {
 public:
  /// Joins the group described by `rank`: rank 0 serves the store on master_addr:master_port,
  /// the others connect to it; all wait until every rank has joined (at most timeout_s).
  /// `device` picks the backend for DistBackend::automatic (gloo on CPU, nccl on CUDA).
  /// Throws DistError: port in use, master unreachable, backend missing, ranks missing.
  static std::unique_ptr<Communicator> connect(const RankInfo& rank, DistBackend backend, c10::Device device,
                                               double timeout_s);
  virtual ~Communicator();

  int rank() const { return rank_; }
  int world_size() const { return world_size_; }
  const std::string& backend_name() const { return backend_name_; }

  /// In place: every rank's tensors take root's values. Shapes and dtypes must agree.
  void broadcast(std::vector<at::Tensor> tensors, int root, const std::string& what);

  /// In place: every rank's tensor becomes the element-wise sum (or max) over ranks.
  void all_reduce_sum(at::Tensor tensor, const std::string& what);
  void all_reduce_max(at::Tensor tensor, const std::string& what);

  /// Every rank's `tensor` (same shape everywhere), stacked: [world_size, ...].
  at::Tensor all_gather(const at::Tensor& tensor, const std::string& what);

  /// Sends a byte string from root to every rank (two broadcasts: the length, then the bytes).
  std::string broadcast_bytes(const std::string& bytes, int root, const std::string& what);

  /// A started all-reduce (sum) over several tensors; finish() waits for all of them.
  class PendingSum {
   public:
    PendingSum(PendingSum&&) noexcept;
    ~PendingSum();
    void finish();

   private:
    friend class Communicator;
    struct Impl;
    explicit PendingSum(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
  };
  PendingSum start_all_reduce_sum(std::vector<at::Tensor> tensors, const std::string& what);

  /// Waits until every rank has called it (a rendezvous point between phases).
  void barrier(const std::string& what);

 private:
  Communicator() = default;
  void join_process_group(DistBackend backend);
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int rank_ = 0, world_size_ = 1;
  std::string backend_name_;
  [[noreturn]] void fail(const std::string& what, const std::string& reason);
  /// Which ranks' heartbeats stood still over two seconds, in words for an error: "rank 1 does not
  /// answer ...", "every other rank is still alive ...", or "rank 0 does not answer" (the store).
  std::string roll_call();
};

}  // namespace nmt
