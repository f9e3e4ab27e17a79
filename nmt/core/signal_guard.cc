#include "nmt/core/signal_guard.h"

#include <atomic>
#include <csignal>

namespace nmt {
namespace {

// A signal handler may only touch a lock-free atomic of static storage.
std::atomic<int> g_received{0};
extern "C" void record_signal(int signal) { g_received.store(signal); }

}  // namespace

struct SignalGuard::Saved {
  struct sigaction interrupt {}, terminate {};
};

SignalGuard::SignalGuard() : saved_(std::make_unique<Saved>()) {
  g_received.store(0);
  struct sigaction action {};
  action.sa_handler = record_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &saved_->interrupt);
  sigaction(SIGTERM, &action, &saved_->terminate);
}

SignalGuard::~SignalGuard() {
  sigaction(SIGINT, &saved_->interrupt, nullptr);
  sigaction(SIGTERM, &saved_->terminate, nullptr);
}

int SignalGuard::received() const { return g_received.load(); }

int SignalGuard::take() { return g_received.exchange(0); }

}  // namespace nmt
