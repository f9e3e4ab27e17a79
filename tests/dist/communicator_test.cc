// The process group on the loopback, two ranks as two threads of this process: collectives,
// bucketed gradient sums, and the errors of a group that cannot form or loses a rank.
#include "nmt/dist/communicator.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <future>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <torch/cuda.h>

#include "nmt/dist/gradient_sync.h"
#include "nmt/model/seq2seq.h"
#include "tests/model/model_test_util.h"
#include "tests/test_util.h"

namespace nmt {
namespace {

using Clock = std::chrono::steady_clock;

// A loopback socket bound to a port the kernel chose; listening when asked (a port in use).
class BoundPort {
 public:
  explicit BoundPort(bool listen_on_it) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    EXPECT_EQ(getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &size), 0);
    port_ = ntohs(address.sin_port);
    if (listen_on_it) {
      EXPECT_EQ(listen(fd_, 4), 0);
    }
  }
  ~BoundPort() { close(fd_); }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

int free_port() { return BoundPort(false).port(); }

RankInfo place(int rank, int world, int port) {
  RankInfo r;
  r.rank = rank;
  r.world_size = world;
  r.local_rank = rank;
  r.master_addr = "127.0.0.1";
  r.master_port = port;
  r.source = "test";
  return r;
}

// Runs body(rank, communicator) on `world` threads joined into one group; rethrows the first failure.
// `device(rank)` is the rank's training device (it picks the backend for DistBackend::automatic).
void in_group(int world, const std::function<void(int, Communicator&)>& body, double timeout_s = 20,
              DistBackend backend = DistBackend::automatic,
              const std::function<c10::Device(int)>& device = [](int) { return c10::Device(c10::kCPU); }) {
  const int port = free_port();
  std::vector<std::future<void>> ranks;
  for (int r = 0; r < world; ++r) {
    ranks.push_back(std::async(std::launch::async, [=, &body] {
      auto comm = Communicator::connect(place(r, world, port), backend, device(r), timeout_s);
      body(r, *comm);
    }));
  }
  for (auto& f : ranks) f.get();
}

TEST(Communicator, CollectivesGiveEveryRankTheSameValues) {
  in_group(2, [](int rank, Communicator& comm) {
    EXPECT_EQ(comm.rank(), rank);
    EXPECT_EQ(comm.world_size(), 2);
    EXPECT_EQ(comm.backend_name(), "gloo");

    at::Tensor t = at::full({3}, static_cast<float>(rank + 1));
    comm.all_reduce_sum(t, "test sum");
    EXPECT_TRUE(at::equal(t, at::full({3}, 3.0f)));

    at::Tensor m = at::tensor({rank == 0 ? 5.0 : -1.0, rank == 0 ? -7.0 : 2.0}, at::kDouble);
    comm.all_reduce_max(m, "test max");
    EXPECT_EQ(m[0].item<double>(), 5.0);
    EXPECT_EQ(m[1].item<double>(), 2.0);

    at::Tensor b = rank == 1 ? at::arange(4, at::kFloat) : at::zeros({4}, at::kFloat);
    comm.broadcast({b}, 1, "test broadcast");
    EXPECT_TRUE(at::equal(b, at::arange(4, at::kFloat)));

    const at::Tensor all = comm.all_gather(at::tensor({static_cast<std::int64_t>(10 + rank), 7L}, at::kLong), "gather");
    ASSERT_EQ(all.sizes(), (std::vector<std::int64_t>{2, 2}));
    EXPECT_EQ(all[0][0].item<std::int64_t>(), 10);
    EXPECT_EQ(all[1][0].item<std::int64_t>(), 11);

    for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{1} << 20}) {
      std::string bytes(size, '\0');
      for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>(i * 131 % 251);
      EXPECT_EQ(comm.broadcast_bytes(rank == 0 ? bytes : "ignored", 0, "bytes"), bytes);
    }
    comm.barrier("test barrier");
  });
}

// The TCP ports this process listens on, by local IPv4/IPv6 address in /proc's hex form.
std::vector<std::string> listening_addresses() {
  std::set<std::string> inodes;
  for (const auto& fd : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code error;
    const std::string target = std::filesystem::read_symlink(fd.path(), error).string();
    if (!error && target.rfind("socket:[", 0) == 0) inodes.insert(target.substr(8, target.size() - 9));
  }
  std::vector<std::string> addresses;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
      fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >> timeout >> inode;
      if (state == "0A" && inodes.count(inode) > 0) addresses.push_back(local.substr(0, local.find(':')));
    }
  }
  return addresses;
}

// nmt's supervisor puts a one-machine group's rendezvous in a file store: the ranks meet, sum,
// and nothing of theirs listens on an address other than the loopback (the TCP store listens on
// every interface, and LibTorch gives no way to bind it to one).
TEST(Communicator, AFileStoreGroupMeetsWithoutListeningBeyondTheLoopback) {
  test::TempDir dir;
  const std::string file = (dir.root() / "store").string();
  std::vector<std::future<std::vector<std::string>>> ranks;
  for (int r = 0; r < 2; ++r) {
    ranks.push_back(std::async(std::launch::async, [r, file] {
      RankInfo p = place(r, 2, free_port());  // a port nobody serves: the file is the rendezvous
      p.store_file = file;
      auto comm = Communicator::connect(p, DistBackend::gloo, c10::Device(c10::kCPU), 20);
      at::Tensor t = at::full({3}, static_cast<float>(r + 1));
      comm->all_reduce_sum(t, "test sum");
      EXPECT_TRUE(at::equal(t, at::full({3}, 3.0f)));
      std::vector<std::string> listening = listening_addresses();
      comm->barrier("listed");
      return listening;
    }));
  }
  for (auto& f : ranks) {
    for (const std::string& address : f.get()) {
      // 0100007F: 127.0.0.1; IPv6 loopback ::1 and v4-mapped 127.0.0.1.
      const bool loopback = address == "0100007F" || address == "00000000000000000000000001000000" ||
                            address == "0000000000000000FFFF00000100007F";
      EXPECT_TRUE(loopback) << "a socket listens on " << address;
    }
  }
}

TEST(Communicator, RanksMissingFromAFileStoreAreNamedWithinTheTimeout) {
  test::TempDir dir;
  RankInfo p = place(0, 3, free_port());
  p.store_file = (dir.root() / "store").string();
  const auto start = Clock::now();
  EXPECT_THROW_WITH(Communicator::connect(p, DistBackend::gloo, c10::Device(c10::kCPU), 2), DistError,
                    "rank 0: not every one of the 3 ranks reached the file store " + p.store_file +
                        " within 2 s (ranks 1, 2 are missing)");
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(15));
  p.store_file = (dir.root() / "no-such-folder" / "store").string();
  EXPECT_THROW_WITH(Communicator::connect(p, DistBackend::gloo, c10::Device(c10::kCPU), 2), DistError,
                    "rank 0 cannot open the group's file store " + p.store_file);
}

TEST(GradientSync, EveryGradientBecomesItsSumOverRanksInAnyNumberOfBuckets) {
  for (const std::int64_t bucket_bytes : {std::int64_t{4}, std::int64_t{25} << 20}) {
    in_group(2, [bucket_bytes](int rank, Communicator& comm) {
      // Three parameters; rank 1 has no gradient for the second (it took no batch using it).
      std::vector<at::Tensor> params = {at::zeros({2, 3}).requires_grad_(), at::zeros({5}).requires_grad_(),
                                        at::zeros({1}).requires_grad_()};
      for (std::size_t i = 0; i < params.size(); ++i) {
        if (rank == 1 && i == 1) continue;
        params[i].mutable_grad() = at::arange(params[i].numel(), at::kFloat).view(params[i].sizes()) * (rank + 1) +
                                   static_cast<float>(i);
      }
      GradientSync sync(params, bucket_bytes);
      EXPECT_EQ(sync.buckets(), bucket_bytes == 4 ? 3u : 1u);  // 4 bytes: one parameter each
      sync.all_reduce(comm);
      for (std::size_t i = 0; i < params.size(); ++i) {
        const at::Tensor base = at::arange(params[i].numel(), at::kFloat).view(params[i].sizes());
        const at::Tensor expected = i == 1 ? base + 1.0f : base * 3 + 2.0f * static_cast<float>(i);
        ASSERT_TRUE(params[i].grad().defined());
        EXPECT_TRUE(at::equal(params[i].grad(), expected)) << "parameter " << i << " rank " << rank;
      }
    });
  }
}

// A tiny real model, the same on every rank (ranks are threads here and share LibTorch's global
// generator: whatever draws from it holds this lock).
std::mutex generator_lock;
Seq2Seq tiny_model() {
  std::lock_guard<std::mutex> lock(generator_lock);
  torch::manual_seed(11);
  return Seq2Seq(test::tiny_config(AttentionType::general, DecoderStyle::luong));
}

// Back-propagates the summed loss of batch `i` of this rank's own batches.
void backward_on_batch(Seq2Seq& model, int rank, int i) {
  Batch batch;
  {
    std::lock_guard<std::mutex> lock(generator_lock);
    batch = test::varied_batch(model->config(), static_cast<std::uint64_t>(100 + 10 * rank + i));
  }
  const auto out = model->forward(batch.source, batch.source_lengths, batch.target_in);
  const at::Tensor loss = at::cross_entropy_loss(out.logits.reshape({-1, out.logits.size(-1)}),
                                                 batch.target_out.reshape(-1), {}, at::Reduction::Sum, 0);
  (loss / 37.0).backward();
}

// Started by autograd hooks during the step's last backward, the sum is the serial one bit for bit
// (the same buckets, the same float adds) for any bucket size, with gradients accumulated over two
// batches and with a rank that had no batch; and it is the sum of the ranks' own gradients.
TEST(GradientSync, TheSumOverlappedWithBackwardIsTheSerialSumBitForBit) {
  for (const std::int64_t bucket_bytes : {std::int64_t{4}, std::int64_t{4096}, std::int64_t{25} << 20}) {
    for (const int rank1_batches : {2, 0}) {
      in_group(2, [&](int rank, Communicator& comm) {
        const int batches = rank == 1 ? rank1_batches : 2;
        Seq2Seq serial = tiny_model();
        for (int i = 0; i < batches; ++i) backward_on_batch(serial, rank, i);
        std::vector<at::Tensor> own;
        for (const auto& p : serial->parameters()) own.push_back(p.grad().defined() ? p.grad().reshape(-1) : at::zeros({p.numel()}));
        const at::Tensor everyone = comm.all_gather(at::cat(own), "gather");  // [2, parameters]
        GradientSync(serial->parameters(), bucket_bytes).all_reduce(comm);

        Seq2Seq overlapped = tiny_model();
        GradientSync sync(overlapped->parameters(), bucket_bytes);
        if (batches == 0) sync.arm(comm);
        for (int i = 0; i < batches; ++i) {
          if (i + 1 == batches) sync.arm(comm);
          backward_on_batch(overlapped, rank, i);
        }
        sync.finish();

        const auto a = serial->named_parameters(), b = overlapped->named_parameters();
        std::vector<at::Tensor> sums;
        for (std::size_t i = 0; i < a.size(); ++i) {
          ASSERT_TRUE(b[i].value().grad().defined()) << b[i].key();
          EXPECT_TRUE(at::equal(a[i].value().grad(), b[i].value().grad())) << a[i].key() << ", bucket bytes " << bucket_bytes;
          sums.push_back(a[i].value().grad().reshape(-1));
        }
        EXPECT_TRUE(at::equal(at::cat(sums), everyone[0] + everyone[1]));
        if (bucket_bytes == 4) {  // a bucket per parameter: all but the last ones backward reaches start early
          EXPECT_EQ(sync.buckets(), a.size());
          if (batches > 0) {
            EXPECT_GT(sync.started_during_backward(), a.size() / 2) << "rank " << rank;
          }
        }
        // Disarmed: another backward leaves the buckets alone, and finish() without arm() is an error.
        backward_on_batch(overlapped, rank, 5);
        EXPECT_THROW(sync.finish(), Error);
      });
    }
  }
}

// The same collectives with CUDA tensors: Gloo on one GPU (two ranks may share it), NCCL with
// one GPU per rank. They build everywhere and skip without the hardware (CI has no GPU).
void sums_cuda_tensors(DistBackend backend, const std::function<c10::Device(int)>& device) {
  in_group(
      2,
      [&](int rank, Communicator& comm) {
        const c10::Device here = device(rank);
        at::Tensor t = at::full({5}, static_cast<float>(rank + 1), at::TensorOptions().device(here));
        comm.all_reduce_sum(t, "cuda sum");
        EXPECT_EQ(t.device(), here);
        EXPECT_TRUE(at::equal(t.cpu(), at::full({5}, 3.0f)));
        std::vector<at::Tensor> params = {at::zeros({3}, at::TensorOptions().device(here)).requires_grad_()};
        params[0].mutable_grad() = at::full({3}, static_cast<float>(rank), at::TensorOptions().device(here));
        GradientSync sync(params);
        sync.all_reduce(comm);
        EXPECT_TRUE(at::equal(params[0].grad().cpu(), at::full({3}, 1.0f)));
        const at::Tensor all = comm.all_gather(at::tensor({static_cast<std::int64_t>(rank)}, at::kLong), "gather");
        EXPECT_EQ(all[1][0].item<std::int64_t>(), 1);
        EXPECT_EQ(comm.broadcast_bytes(rank == 0 ? "abc" : "", 0, "bytes"), "abc");
      },
      20, backend, device);
}

TEST(Communicator, GlooSumsCudaTensors) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  sums_cuda_tensors(DistBackend::gloo, [](int) { return c10::Device(c10::kCUDA, 0); });
}

TEST(Communicator, NcclSumsAcrossTwoGpus) {
  if (!dist_backend_available(DistBackend::nccl)) GTEST_SKIP() << "this LibTorch has no NCCL";
  if (!torch::cuda::is_available() || torch::cuda::device_count() < 2) GTEST_SKIP() << "fewer than 2 CUDA devices";
  sums_cuda_tensors(DistBackend::nccl, [](int rank) { return c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(rank)); });
}

// c10d's own words for a port in use are read (classify_store_server_failure): pinned here to the
// LibTorch we build with.
TEST(Communicator, APortInUseIsOneLineNamingIt) {
  BoundPort busy(/*listen_on_it=*/true);
  const auto start = Clock::now();
  EXPECT_THROW_WITH(Communicator::connect(place(0, 2, busy.port()), DistBackend::gloo, c10::Device(c10::kCPU), 5),
                    DistError,
                    "rank 0 cannot serve the rendezvous on 127.0.0.1:" + std::to_string(busy.port()) +
                        " (dist.master-port is in use?)");
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(30));
}

// Ranks that never come: LibTorch 1.13's store server does not wait for them and Gloo's join
// times out; a store server that waits reports a timeout (classified as ranks_missing). Either
// way one line naming the rendezvous, within the timeout, never "port in use".
TEST(Communicator, RanksThatNeverComeAreOneLineWithinTheTimeoutAndNotAPortInUse) {
  const int port = free_port();
  const auto start = Clock::now();
  try {
    Communicator::connect(place(0, 2, port), DistBackend::gloo, c10::Device(c10::kCPU), 2);
    ADD_FAILURE() << "a group of 2 formed with one rank";
  } catch (const DistError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("127.0.0.1:" + std::to_string(port)), std::string::npos) << message;
    EXPECT_EQ(message.find("in use"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(20));
  EXPECT_EQ(classify_store_server_failure("something else"), StoreServerFailure::other);
}

TEST(Communicator, AnUnreachableMasterIsNamedWithinTheTimeout) {
  const int port = free_port();  // nobody serves it
  const auto start = Clock::now();
  EXPECT_THROW_WITH(Communicator::connect(place(1, 2, port), DistBackend::gloo, c10::Device(c10::kCPU), 2), DistError,
                    "rank 1 cannot reach the master 127.0.0.1:" + std::to_string(port) + " within 2 s");
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(15));
}

TEST(Communicator, NcclWithoutCudaOrWithoutNcclIsRefused) {
  EXPECT_THROW_WITH(Communicator::connect(place(0, 2, free_port()), DistBackend::nccl, c10::Device(c10::kCPU), 2),
                    DistError, "dist.backend nccl");
}

// A rank that is gone (its process group and heartbeat closed): the other's next collective ends
// within the timeout with one line naming it. A rank whose process lives on but does not take
// part (stuck) is told apart: its heartbeat still beats.
TEST(Communicator, ARankThatIsGoneIsNamedAndAStuckOneIsToldApart) {
  for (const bool gone : {true, false}) {
    std::promise<void> rank0_done;
    auto done = rank0_done.get_future().share();
    in_group(
        2,
        [done, gone, &rank0_done](int rank, Communicator& comm) {
          if (rank == 1) {
            if (!gone) done.wait();  // holds its connections and beats, joins nothing
            return;                  // gone: the communicator closes as the thread returns
          }
          if (gone) std::this_thread::sleep_for(std::chrono::milliseconds(300));
          const auto start = Clock::now();
          try {
            comm.all_reduce_sum(at::ones({4}), "summing gradients");
            ADD_FAILURE() << "the all-reduce returned without rank 1";
          } catch (const DistError& e) {
            const std::string message = e.what();
            EXPECT_NE(message.find("rank 0: summing gradients failed"), std::string::npos) << message;
            EXPECT_NE(message.find(gone ? "rank 1 does not answer" : "every other rank is still alive: one may be stuck"),
                      std::string::npos)
                << message;
            EXPECT_EQ(message.find('\n'), std::string::npos) << message;
          }
          EXPECT_LT(Clock::now() - start, std::chrono::seconds(10));  // 2 s timeout + a 2 s roll call
          rank0_done.set_value();
        },
        /*timeout_s=*/2);
  }
}

}  // namespace
}  // namespace nmt
