// nmt-train as a group of processes on the loopback (ctest label dist): equivalence with one
// process, exact resume, failures of a rank, and the one-line errors of a group that cannot form.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <thread>

#include <torch/cuda.h>

#include "nmt/dist/local_launcher.h"
#include "nmt/model/checkpoint.h"
#include "tests/test_util.h"

extern char** environ;

namespace nmt {
namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A child process running nmt-train with extra environment variables, stderr to a file.
class TrainProcess {
 public:
  TrainProcess(const std::vector<std::string>& arguments, const std::map<std::string, std::string>& variables,
      std::string log_path)
      : log_(std::move(log_path)) {
    std::vector<std::string> strings{NMT_TRAIN_PROGRAM};
    strings.insert(strings.end(), arguments.begin(), arguments.end());
    std::vector<char*> argv;
    for (auto& s : strings) argv.push_back(s.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_strings;
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string entry = *e;
      const std::string name = entry.substr(0, entry.find('='));
      if (variables.count(name) == 0 && name != "RANK" && name != "WORLD_SIZE" && name != "MASTER_PORT") {
        env_strings.push_back(entry);
      }
    }
    for (const auto& [name, value] : variables) env_strings.push_back(name + "=" + value);
    std::vector<char*> envp;
    for (auto& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    EXPECT_EQ(posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), envp.data()), 0);
    posix_spawn_file_actions_destroy(&actions);
  }
  ~TrainProcess() {
    if (!done_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  pid_t pid() const { return pid_; }
  std::string log() const { return test::read_text(log_); }

  /// The exit status in the shell's convention, or -1 when it is still running after `seconds`.
  int wait(double seconds = 120) {
    const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
    while (Clock::now() < deadline) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        done_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return -1;
  }
  /// Waits until the log contains `text` (true) or the process ends or `seconds` pass (false).
  bool wait_for_log(const std::string& text, double seconds = 60) {
    const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
    while (Clock::now() < deadline) {
      if (log().find(text) != std::string::npos) return true;
      if (kill(pid_, 0) != 0) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

 private:
  std::string log_;
  pid_t pid_ = -1;
  bool done_ = false;
};

// The pids of a supervisor's children (its ranks), in start order.
std::vector<pid_t> children_of(pid_t parent) {
  std::ifstream in("/proc/" + std::to_string(parent) + "/task/" + std::to_string(parent) + "/children");
  std::vector<pid_t> pids;
  pid_t pid = 0;
  while (in >> pid) pids.push_back(pid);
  return pids;
}

class DistTrain : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::TempDir();
    const auto es = test::read_lines(test::data_path("toy.es"));
    const auto en = test::read_lines(test::data_path("toy.en"));
    std::string dev_es, dev_en, short_es, short_en;
    for (std::size_t i = 0; i < es.size(); ++i) {
      if (i < 12) {
        dev_es += es[i] + "\n";
        dev_en += en[i] + "\n";
      }
      if (i + 1 < es.size()) {
        short_es += es[i] + "\n";
        short_en += en[i] + "\n";
      }
    }
    test::write_text(dir_->path("dev.es"), dev_es);
    test::write_text(dir_->path("dev.en"), dev_en);
    test::write_text(dir_->path("short.es"), short_es);  // one verse less: other data
    test::write_text(dir_->path("short.en"), short_en);
    const Tokenizer& tokenizer = test::toy_tokenizer(300);
    test::write_text(dir_->path("spm.model"), tokenizer.model_bytes());
    test::write_text(dir_->path("toy.toml"),
                     "device = \"cpu\"\nseed = 3\n\n[data]\ntrain-source = \"" + test::data_path("toy.es") +
                         "\"\ntrain-target = \"" + test::data_path("toy.en") + "\"\ndev-source = \"" +
                         dir_->path("dev.es") + "\"\ndev-target = \"" + dir_->path("dev.en") +
                         "\"\nsource-spm = \"" + dir_->path("spm.model") +
                         "\"\n\n[model]\nembedding-size = 16\nencoder-hidden-size = 16\ndecoder-hidden-size = 16\n"
                         "attention-size = 16\ndropout = 0.3\n\n[train]\nmax-tokens = 300\nlog-every = 1\n\n"
                         "[optim]\nlr = 0.003\n\n[valid]\nevery = 0\nmax-sentences = 4\n\n[checkpoint]\nevery = 10\n");
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  static std::string path(const std::string& name) { return dir_->path(name); }

  // Options for a run in `run` directory: the toy config plus `extra`.
  static std::vector<std::string> options(const std::string& run, std::vector<std::string> extra) {
    std::vector<std::string> all = {"--config", path("toy.toml"), "--run-dir", path(run)};
    if (std::find(extra.begin(), extra.end(), "--dist.timeout") == extra.end()) extra.insert(extra.end(), {"--dist.timeout", "10"});
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
  }

  // Runs to the end; expects `status`; returns stderr.
  static std::string run_to_end(const std::string& run, std::vector<std::string> extra, int status = 0,
                                const std::map<std::string, std::string>& variables = {}) {
    TrainProcess r(options(run, std::move(extra)), variables, path(run + ".log"));
    const int got = r.wait();
    EXPECT_EQ(got, status) << r.log();
    return r.log();
  }

  // Rank `rank` of a 2-rank group started by the test itself, as torchrun would.
  static std::map<std::string, std::string> rank_variables(int rank, int port, const std::string& master = "127.0.0.1") {
    return {{"RANK", std::to_string(rank)}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", std::to_string(rank)},
            {"MASTER_ADDR", master}, {"MASTER_PORT", std::to_string(port)}};
  }

  static std::map<std::string, at::Tensor> parameters(const std::string& checkpoint) {
    Checkpoint c = load_checkpoint(checkpoint);
    std::map<std::string, at::Tensor> out;
    for (const auto& p : c.model->named_parameters()) out[p.key()] = p.value().detach().clone();
    return out;
  }

  static double max_difference(const std::string& a, const std::string& b) {
    const auto pa = parameters(a), pb = parameters(b);
    double worst = 0;
    for (const auto& [name, tensor] : pa) {
      worst = std::max(worst, (tensor - pb.at(name)).abs().max().item<double>());
    }
    return worst;
  }

  static std::vector<nlohmann::json> train_events(const std::string& run) {
    std::vector<nlohmann::json> events;
    for (const auto& line : test::read_lines(path(run + "/metrics.jsonl"))) {
      auto event = nlohmann::json::parse(line);
      if (event["event"] == "train") events.push_back(event);
    }
    return events;
  }

  static test::TempDir* dir_;
};

test::TempDir* DistTrain::dir_ = nullptr;

// The update of W ranks is that of one process accumulating their W batches (dropout off: the
// ranks' dropout draws differ from one process's by design).
TEST_F(DistTrain, TwoRanksTakeTheStepsOfOneProcessAccumulatingTwoBatches) {
  const std::vector<std::string> common = {"--model.dropout", "0", "--train.max-steps", "20"};
  auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.begin(), common.begin(), common.end());
    return extra;
  };
  run_to_end("one-acc2", with({"--train.accumulate", "2"}));
  const std::string group = run_to_end("two-ranks", with({"--dist.nproc-per-node", "2"}));
  run_to_end("one-acc1", with({}));
  EXPECT_NE(group.find("[rank 0]"), std::string::npos) << group;

  const double difference = max_difference(path("one-acc2/checkpoints/step-00000020.pt"),
                                           path("two-ranks/checkpoints/step-00000020.pt"));
  EXPECT_LT(difference, 1e-5);
  // The comparison can tell: one process without accumulation is far from both.
  EXPECT_GT(max_difference(path("one-acc1/checkpoints/step-00000020.pt"), path("two-ranks/checkpoints/step-00000020.pt")),
            1e-3);
  // Same batches seen: the same target tokens step by step, the same losses up to float sums.
  const auto single = train_events("one-acc2"), ranks = train_events("two-ranks");
  ASSERT_EQ(single.size(), 20u);
  ASSERT_EQ(ranks.size(), 20u);
  for (std::size_t i = 0; i < single.size(); ++i) {
    EXPECT_EQ(single[i]["target_tokens"], ranks[i]["target_tokens"]) << "step " << i + 1;
    EXPECT_NEAR(single[i]["loss"].get<double>(), ranks[i]["loss"].get<double>(), 1e-5) << "step " << i + 1;
  }
  EXPECT_GT(ranks.back()["target_tokens"].get<std::int64_t>(), 20 * 2 * 100);
}

// Summed while backward runs (the default) or after it, in small buckets, with two batches
// accumulated per rank and dropout on: the same parameters bit for bit.
TEST_F(DistTrain, TheSumOverlappedWithBackwardTrainsBitIdenticallyToTheSerialSum) {
  const std::vector<std::string> common = {"--train.max-steps", "10", "--train.accumulate", "2",
                                           "--dist.nproc-per-node", "2", "--dist.bucket-mb", "0.002"};
  auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.begin(), common.begin(), common.end());
    return extra;
  };
  run_to_end("overlapped", with({}));
  run_to_end("serial", with({"--dist.overlap", "false"}));
  const auto overlapped = parameters(path("overlapped/checkpoints/step-00000010.pt"));
  const auto serial = parameters(path("serial/checkpoints/step-00000010.pt"));
  for (const auto& [name, tensor] : serial) EXPECT_TRUE(at::equal(tensor, overlapped.at(name))) << name;
  const auto a = train_events("overlapped"), b = train_events("serial");
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i]["loss"], b[i]["loss"]) << "step " << i + 1;
}

// On CUDA (skipped without a GPU; CI has none): two ranks sharing GPU 0 through Gloo, or one GPU
// each through NCCL where there are two, take the steps of one process accumulating two batches.
TEST_F(DistTrain, TwoRanksOnCudaTakeTheStepsOfOneProcessAccumulatingTwoBatches) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const std::string backend = torch::cuda::device_count() >= 2 ? "auto" : "gloo";
  const std::vector<std::string> common = {"--device", "cuda", "--model.dropout", "0", "--train.max-steps", "10"};
  auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.begin(), common.begin(), common.end());
    return extra;
  };
  run_to_end("cuda-one", with({"--train.accumulate", "2"}));
  const std::string log = run_to_end("cuda-two", with({"--dist.nproc-per-node", "2", "--dist.backend", backend}));
  EXPECT_LT(max_difference(path("cuda-one/checkpoints/step-00000010.pt"), path("cuda-two/checkpoints/step-00000010.pt")),
            1e-4)
      << log;
}

// Stopped at step 10 and resumed with the same number of ranks, a run ends with exactly the
// parameters of an uninterrupted one: optimizer moments, data position and each rank's dropout.
TEST_F(DistTrain, ResumeOfATwoRankRunIsBitIdentical) {
  run_to_end("straight", {"--train.max-steps", "20", "--dist.nproc-per-node", "2"});
  run_to_end("resumed", {"--train.max-steps", "10", "--dist.nproc-per-node", "2"});
  const std::string log = run_to_end("resumed", {"--train.max-steps", "20", "--dist.nproc-per-node", "2", "--resume"});
  EXPECT_NE(log.find("resumed from"), std::string::npos) << log;
  const auto straight = parameters(path("straight/checkpoints/step-00000020.pt"));
  const auto resumed = parameters(path("resumed/checkpoints/step-00000020.pt"));
  for (const auto& [name, tensor] : straight) EXPECT_TRUE(at::equal(tensor, resumed.at(name))) << name;
  // Each rank has its own dropout: resuming rank 1 with rank 0's generator would differ.
  EXPECT_GT(max_difference(path("straight/checkpoints/step-00000020.pt"), path("resumed/checkpoints/step-00000010.pt")),
            0);
}

// A group fine-tunes a model whose source and target subword models differ (with init-from the
// options name neither: rank 0 sends both), keeping a moving average; resuming it is bit-identical.
TEST_F(DistTrain, TwoRanksFineTuneAModelWithTwoSubwordModelsKeepingAnAverage) {
  test::write_text(path("spm500.model"), test::toy_tokenizer(500).model_bytes());
  run_to_end("two-models", {"--train.max-steps", "4", "--data.target-spm", path("spm500.model")});
  const std::vector<std::string> tune = {"--init-from", path("two-models/checkpoints/step-00000004.pt"),
                                         "--data.source-spm", "", "--train.ema-decay", "0.9",
                                         "--dist.nproc-per-node", "2"};
  auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.begin(), tune.begin(), tune.end());
    return extra;
  };
  const std::string log = run_to_end("tuned-straight", with({"--train.max-steps", "8"}));
  EXPECT_NE(log.find("initialised from"), std::string::npos) << log;
  const Checkpoint tuned = load_checkpoint(path("tuned-straight/checkpoints/step-00000008.pt"));
  EXPECT_EQ(tuned.model->config().target_vocab_size, 500);
  EXPECT_EQ(tuned.model->config().source_vocab_size, 300);
  run_to_end("tuned-resumed", with({"--train.max-steps", "4"}));
  run_to_end("tuned-resumed", with({"--train.max-steps", "8", "--resume"}));
  const auto straight = parameters(path("tuned-straight/checkpoints/step-00000008.pt"));
  const auto resumed = parameters(path("tuned-resumed/checkpoints/step-00000008.pt"));
  for (const auto& [name, tensor] : straight) EXPECT_TRUE(at::equal(tensor, resumed.at(name))) << name;
}

// One process continues a group's run and a group continues a one-process run, saying so.
TEST_F(DistTrain, OneProcessAndAGroupResumeEachOthersRuns) {
  run_to_end("cross", {"--train.max-steps", "10", "--dist.nproc-per-node", "2"});
  std::string log = run_to_end("cross", {"--train.max-steps", "14", "--resume"});
  EXPECT_NE(log.find("was written by a run of 2 rank(s) and continues with 1"), std::string::npos) << log;
  log = run_to_end("cross", {"--train.max-steps", "18", "--resume", "--dist.nproc-per-node", "2"});
  EXPECT_NE(log.find("was written by a run of 1 rank(s) and continues with 2"), std::string::npos) << log;
  EXPECT_TRUE(fs::exists(path("cross/checkpoints/step-00000018.pt")));
}

// SIGTERM to one rank only: the whole group stops at the same step, rank 0 writes one
// checkpoint, the supervisor exits 143, and --resume continues from it.
TEST_F(DistTrain, SigtermToOneRankStopsTheGroupWithOneCheckpoint) {
  TrainProcess group(options("term", {"--train.max-steps", "100000", "--checkpoint.every", "100000", "--dist.nproc-per-node", "2"}),
            {}, path("term.log"));
  ASSERT_TRUE(group.wait_for_log("step       3 |")) << group.log();
  const auto ranks = children_of(group.pid());
  ASSERT_EQ(ranks.size(), 2u);
  kill(ranks[1], SIGTERM);
  EXPECT_EQ(group.wait(60), 143) << group.log();
  EXPECT_NE(group.log().find("stopped by SIGTERM at step"), std::string::npos) << group.log();
  const std::string latest = test::read_text(path("term/checkpoints/latest"));
  int checkpoints = 0;
  for (const auto& entry : fs::directory_iterator(path("term/checkpoints"))) {
    checkpoints += entry.path().extension() == ".pt";
  }
  EXPECT_EQ(checkpoints, 1);
  const std::int64_t stopped_at = std::stoll(latest.substr(5));
  run_to_end("term", {"--train.max-steps", std::to_string(stopped_at + 2), "--dist.nproc-per-node", "2", "--resume"});
}

// kill -9 of rank 1 (started as torchrun would): rank 0 ends with an error naming it, within
// dist.timeout; under the supervisor, it names the rank and the signal.
TEST_F(DistTrain, KilledRankEndsTheOthersWithAnErrorNamingIt) {
  const int port = find_free_port();
  const auto extra = std::vector<std::string>{"--train.max-steps", "100000", "--checkpoint.every", "100000",
                                              "--dist.timeout", "5"};
  TrainProcess rank0(options("killed", extra), rank_variables(0, port), path("killed.0.log"));
  TrainProcess rank1(options("killed", extra), rank_variables(1, port), path("killed.1.log"));
  ASSERT_TRUE(rank0.wait_for_log("step       3 |")) << rank0.log() << rank1.log();
  kill(rank1.pid(), SIGKILL);
  const auto start = Clock::now();
  EXPECT_EQ(rank0.wait(30), 1) << rank0.log();
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(5 + 3 + 4));
  EXPECT_NE(rank0.log().find("rank 1 does not answer"), std::string::npos) << rank0.log();
  rank1.wait(5);

  auto supervised = extra;
  supervised.insert(supervised.end(), {"--dist.nproc-per-node", "2"});
  TrainProcess group(options("killed-supervised", supervised), {}, path("killed-supervised.log"));
  ASSERT_TRUE(group.wait_for_log("step       3 |")) << group.log();
  const auto ranks = children_of(group.pid());
  ASSERT_EQ(ranks.size(), 2u);
  kill(ranks[1], SIGKILL);
  EXPECT_EQ(group.wait(15), 137) << group.log();
  EXPECT_NE(group.log().find("rank 1 (pid " + std::to_string(ranks[1]) + ") was killed by signal 9 (SIGKILL)"),
            std::string::npos)
      << group.log();
}

// A rank that hangs (SIGSTOP): the other ends within the timeout, naming it.
TEST_F(DistTrain, HungRankIsNamedWithinTheTimeout) {
  const int port = find_free_port();
  const auto extra = std::vector<std::string>{"--train.max-steps", "100000", "--checkpoint.every", "100000",
                                              "--dist.timeout", "3"};
  TrainProcess rank0(options("hung", extra), rank_variables(0, port), path("hung.0.log"));
  TrainProcess rank1(options("hung", extra), rank_variables(1, port), path("hung.1.log"));
  ASSERT_TRUE(rank0.wait_for_log("step       3 |")) << rank0.log() << rank1.log();
  kill(rank1.pid(), SIGSTOP);
  const auto start = Clock::now();
  EXPECT_EQ(rank0.wait(30), 1) << rank0.log();
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(3 + 6 + 4));
  EXPECT_NE(rank0.log().find("rank 1 does not answer"), std::string::npos) << rank0.log();
  kill(rank1.pid(), SIGKILL);
}

// Ranks that would train different models refuse to start, each with one line.
TEST_F(DistTrain, MismatchedOptionsOrDataAcrossRanksAreRefused) {
  for (const auto& [name, different] :
       std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"options", {"--model.dropout", "0.1"}},
           {"data", {"--data.train-source", path("short.es"), "--data.train-target", path("short.en")}}}) {
    const int port = find_free_port();
    TrainProcess rank0(options("mismatch-" + name, {"--train.max-steps", "5"}), rank_variables(0, port),
              path("mismatch-" + name + ".0.log"));
    auto extra = different;
    extra.insert(extra.begin(), {"--train.max-steps", "5"});
    TrainProcess rank1(options("mismatch-" + name, extra), rank_variables(1, port), path("mismatch-" + name + ".1.log"));
    EXPECT_EQ(rank0.wait(60), 1) << rank0.log();
    EXPECT_EQ(rank1.wait(60), 1) << rank1.log();
    const std::string expected = name == "options" ? "rank 1's [model] options differ from rank 0's"
                                                   : "rank 1's training data differ from rank 0's (305 vs 306 pairs after filtering";
    EXPECT_NE(rank0.log().find(expected), std::string::npos) << rank0.log();
    EXPECT_NE(rank1.log().find(expected), std::string::npos) << rank1.log();
    EXPECT_FALSE(fs::exists(path("mismatch-" + name + "/checkpoints/latest")));
  }
  // Where a rank runs may differ: run directory, threads.
  const int port = find_free_port();
  TrainProcess rank0(options("same-a", {"--train.max-steps", "2"}), rank_variables(0, port), path("same-a.log"));
  TrainProcess rank1(options("same-b", {"--train.max-steps", "2", "--threads", "2"}), rank_variables(1, port), path("same-b.log"));
  EXPECT_EQ(rank0.wait(), 0) << rank0.log();
  EXPECT_EQ(rank1.wait(), 0) << rank1.log();
  EXPECT_FALSE(fs::exists(path("same-b")));  // rank 1 writes nothing
}

TEST_F(DistTrain, AGroupThatCannotFormIsOneLineError) {
  // Two one-machine groups given the same master port: they meet in file stores of their own
  // (the port serves nothing on one machine), so both train. (A TCP store's port in use is
  // Communicator.APortInUseIsOneLineNamingIt.)
  const int shared_port = find_free_port();
  TrainProcess holder(options("holder", {"--train.max-steps", "100000", "--checkpoint.every", "100000", "--dist.nproc-per-node",
                                "2", "--dist.master-port", std::to_string(shared_port)}),
             {}, path("holder.log"));
  ASSERT_TRUE(holder.wait_for_log("step       2 |")) << holder.log();
  std::string log = run_to_end("beside", {"--train.max-steps", "5", "--dist.nproc-per-node", "2", "--dist.master-port",
                                          std::to_string(shared_port)});
  EXPECT_NE(log.find("(rendezvous: the file store "), std::string::npos) << log;
  kill(holder.pid(), SIGTERM);
  EXPECT_EQ(holder.wait(60), 143) << holder.log();

  // An unknown master host: rank 1 cannot reach it, within the timeout.
  const auto start = Clock::now();
  log = run_to_end("nomaster", {"--train.max-steps", "5", "--dist.timeout", "3"}, 1,
                   rank_variables(1, find_free_port(), "no-such-host.invalid"));
  EXPECT_NE(log.find("rank 1 cannot reach the master no-such-host.invalid:"), std::string::npos) << log;
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(30));
  // A master that does not listen: c10d logs its own report before it throws ("WARNING: Logging
  // before InitGoogleLogging() ...", "E20261126 18:33:31.816646 7331 socket.cpp:860] [c10d] The
  // client socket has timed out ..."); nmt-train shows none of it, its one line says it all.
  const std::regex torch_log("(^|\n)[IWEF][0-9]{8} |InitGoogleLogging");
  EXPECT_FALSE(std::regex_search(log, torch_log)) << log;
  log = run_to_end("closed", {"--train.max-steps", "5", "--dist.timeout", "3"}, 1,
                   rank_variables(1, find_free_port(), "127.0.0.1"));
  EXPECT_NE(log.find("rank 1 cannot reach the master 127.0.0.1:"), std::string::npos) << log;
  EXPECT_FALSE(std::regex_search(log, torch_log)) << log;

  // A backend this LibTorch lacks, or that needs a GPU.
  log = run_to_end("nccl", {"--train.max-steps", "5", "--dist.nproc-per-node", "2", "--dist.backend", "nccl"}, 1);
  EXPECT_NE(log.find("dist.backend nccl"), std::string::npos) << log;
  // Ranks that disagree on the group's size (WORLD_SIZE 2 for rank 0, 3 for rank 1): rank 1 says so
  // in one line instead of Gloo's message.
  const int port = find_free_port();
  auto three = rank_variables(1, port);
  three["WORLD_SIZE"] = "3";
  const auto quick = std::vector<std::string>{"--train.max-steps", "5", "--dist.timeout", "5"};
  TrainProcess size0(options("size", quick), rank_variables(0, port), path("size.0.log"));
  TrainProcess size1(options("size", quick), three, path("size.1.log"));
  EXPECT_EQ(size1.wait(60), 1) << size1.log();
  EXPECT_NE(size1.log().find("rank 1 counts 3 ranks (WORLD_SIZE or dist.nnodes x dist.nproc-per-node), rank 0 "
                             "counts 2: start every rank with the same group size"),
            std::string::npos)
      << size1.log();
  EXPECT_EQ(size0.wait(60), 1) << size0.log();
  // Launcher variables that contradict the options.
  log = run_to_end("contradiction", {"--train.max-steps", "5", "--dist.nproc-per-node", "3"}, 1, rank_variables(0, 1));
  EXPECT_NE(log.find("dist.nnodes x dist.nproc-per-node = 3 ranks, but WORLD_SIZE=2"), std::string::npos) << log;
}

}  // namespace
}  // namespace nmt
