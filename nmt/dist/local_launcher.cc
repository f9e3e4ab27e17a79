#include "nmt/dist/local_launcher.h"

#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "nmt/core/error.h"
#include "nmt/core/log.h"
#include "nmt/core/signal_guard.h"

extern char** environ;

namespace nmt {
namespace {

struct Child {
  int rank = 0;
  pid_t pid = -1;
  bool running = false;
  int status = 0;  // exit status in the shell's convention, once ended
};

std::string describe(int wait_status) {
  if (WIFEXITED(wait_status)) return "exited with status " + std::to_string(WEXITSTATUS(wait_status));
  if (WIFSIGNALED(wait_status)) {
    const int signal = WTERMSIG(wait_status);
    const char* name = sigabbrev_np(signal);
    return "was killed by signal " + std::to_string(signal) + (name != nullptr ? std::string(" (SIG") + name + ")" : "");
  }
  return "ended";
}

int shell_status(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

pid_t start_rank(const RankInfo& rank, const DistOptions& options, const std::vector<std::string>& arguments,
                 const std::string& group_id) {
  std::vector<std::string> variables = {
      "RANK=" + std::to_string(rank.rank),
      "WORLD_SIZE=" + std::to_string(rank.world_size),
      "LOCAL_RANK=" + std::to_string(rank.local_rank),
      "LOCAL_WORLD_SIZE=" + std::to_string(options.nproc_per_node),
      "GROUP_RANK=" + std::to_string(options.node_rank),
      "MASTER_ADDR=" + rank.master_addr,
      "MASTER_PORT=" + std::to_string(rank.master_port),
      "TORCHELASTIC_RUN_ID=nmt-" + group_id,
      "NMT_STORE_FILE=" + rank.store_file,  // blank: the TCP store (an inherited value must not stay)
  };
  // Everything the child needs is built before fork: after it, only async-signal-safe calls.
  // This very program, by its real path (so that ps and top show nmt-train), else /proc/self/exe.
  std::vector<char*> argv;
  char target[4096];
  const ssize_t length = readlink("/proc/self/exe", target, sizeof target - 1);
  std::string program = length > 0 ? std::string(target, static_cast<std::size_t>(length)) : "/proc/self/exe";
  if (access(program.c_str(), X_OK) != 0) program = "/proc/self/exe";  // replaced or removed since it started
  argv.push_back(program.data());
  std::vector<std::string> copies = arguments;
  for (auto& a : copies) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> environment;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& v : variables) replaced = replaced || v.compare(0, name.size() + 1, name + "=") == 0;
    if (!replaced) environment.push_back(entry);
  }
  environment.insert(environment.end(), variables.begin(), variables.end());
  std::vector<char*> envp;
  for (auto& e : environment) envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw Error(std::string("cannot start rank ") + std::to_string(rank.rank) + ": fork: " + std::strerror(errno));
  if (pid == 0) {
    // The child: die with the supervisor, take the rank's variables, become the program again.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(143);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    execve(program.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  return pid;
}

// A folder of the temporary directory that only this user can open, removed with its contents.
class PrivateFolder {
 public:
  explicit PrivateFolder(const std::string& prefix) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/" + prefix + "-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      throw Error("cannot make a folder for the ranks' rendezvous in " + pattern.substr(0, pattern.rfind('/')) + ": " +
                  std::strerror(errno) + " (set TMPDIR to a writable folder)");
    }
    path_ = pattern;
  }
  ~PrivateFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  PrivateFolder(const PrivateFolder&) = delete;
  PrivateFolder& operator=(const PrivateFolder&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

int find_free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw Error(std::string("cannot find a free port: socket: ") + std::strerror(errno));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t size = sizeof address;
  const bool ok = bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
                  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) == 0;
  const int saved = errno;
  close(fd);
  if (!ok) throw Error(std::string("cannot find a free port: ") + std::strerror(saved));
  return ntohs(address.sin_port);
}

namespace {

// The ranks of this machine started as children; on a failure to start one, the ones already
// started are killed (they would wait for it until the timeout) and the error goes on.
std::vector<Child> start_local_ranks(const DistOptions& options, const RankInfo& group,
                                     const std::vector<std::string>& arguments) {
  // Names this group's keys in the store, so that ranks that reach another group's store (a port
  // taken by another run) wait for keys that never come and fail within the timeout.
  const std::string group_id = std::to_string(getpid()) + "-" +
                               std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
  log().info("starting ranks {}..{} of {} on this machine (rendezvous: {})", group.rank,
             group.rank + options.nproc_per_node - 1, group.world_size, group.rendezvous());
  std::vector<Child> children;
  for (int local = 0; local < options.nproc_per_node; ++local) {
    RankInfo rank = group;
    rank.rank = group.rank + local;
    rank.local_rank = local;
    rank.local_world_size = options.nproc_per_node;
    Child child;
    child.rank = rank.rank;
    try {
      child.pid = start_rank(rank, options, arguments, group_id);
    } catch (...) {
      for (const Child& c : children) {
        kill(c.pid, SIGKILL);
        waitpid(c.pid, nullptr, 0);
      }
      throw;
    }
    child.running = true;
    children.push_back(child);
  }
  return children;
}

// Waits for the children: passes SIGINT and SIGTERM on, and after the first failure stops the
// others (SIGTERM, then SIGKILL after grace_s). Returns the exit status (see supervise_local_ranks).
class RankWatch {
 public:
  RankWatch(std::vector<Child> children, double grace_s) : children_(std::move(children)), grace_s_(grace_s) {}

  int run(SignalGuard& signals) {
    for (;;) {
      if (const int signal = signals.take(); signal != 0) forward(signal);
      if (reap() == 0) return result_;
      if (std::chrono::steady_clock::now() >= deadline_) kill_stragglers();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

 private:
  void forward(int signal) {
    forwarded_[signal] = true;
    for (const Child& c : children_) {
      if (c.running) kill(c.pid, signal);
    }
  }

  // Collects the children that ended; returns how many still run.
  int reap() {
    int running = 0;
    for (Child& c : children_) {
      if (!c.running) continue;
      int status = 0;
      const pid_t done = waitpid(c.pid, &status, WNOHANG);
      if (done == 0 || (done < 0 && errno == EINTR)) {
        ++running;
        continue;
      }
      c.running = false;
      c.status = done < 0 ? 1 : shell_status(status);  // ECHILD: someone else reaped it
      ended(c, status);
    }
    return running;
  }

  void ended(const Child& c, int wait_status) {
    const bool asked = c.status > 128 && c.status - 128 < NSIG && forwarded_[c.status - 128];
    if (asked) {  // stopped as asked, with a checkpoint
      if (result_ == 0) result_ = c.status;
    } else if (c.status != 0 && !failed_) {
      // The others learn of it in their next collective, except a rank still waiting for the
      // group to form: SIGTERM ends that one at once and makes a training one stop at its next
      // step, where the lost rank fails the collective with an error naming it.
      failed_ = true;
      result_ = c.status;
      log().error("rank {} (pid {}) {}; stopping the other ranks", c.rank, c.pid, describe(wait_status));
      for (const Child& other : children_) {
        if (other.running) kill(other.pid, SIGTERM);
      }
      deadline_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<std::int64_t>(grace_s_ * 1000));
    } else if (c.status != 0) {
      log().debug("rank {} (pid {}) {}", c.rank, c.pid, describe(wait_status));
    }
  }

  void kill_stragglers() {
    for (const Child& c : children_) {
      if (!c.running) continue;
      log().error("rank {} (pid {}) did not stop within {:.0f} s of the failure: killing it", c.rank, c.pid, grace_s_);
      kill(c.pid, SIGKILL);
    }
    deadline_ = std::chrono::steady_clock::time_point::max();
  }

  std::vector<Child> children_;
  double grace_s_;
  int result_ = 0;
  bool forwarded_[NSIG] = {};
  bool failed_ = false;
  std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
};

}  // namespace

int supervise_local_ranks(const DistOptions& options, const RankInfo& first, const std::vector<std::string>& arguments,
                          double grace_s) {
  SignalGuard signals;  // SIGINT and SIGTERM go to the ranks; the handlers come back on every way out
  RankInfo group = first;
  if (group.master_port == 0) group.master_port = find_free_port();
  // One machine: the ranks meet in a file store in a folder only this user can open (mkdtemp's
  // 0700), not a TCP store listening on every interface (LibTorch's TCPStore cannot be bound to
  // one address); removed when the ranks have ended.
  std::unique_ptr<PrivateFolder> folder;
  if (options.nnodes == 1) {
    folder = std::make_unique<PrivateFolder>("nmt-rendezvous");
    group.store_file = folder->path() + "/store";
  }
  RankWatch watch(start_local_ranks(options, group, arguments), grace_s);
  return watch.run(signals);
}

}  // namespace nmt
