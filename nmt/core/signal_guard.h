// SIGINT and SIGTERM as requests, not deaths: while a SignalGuard lives, either signal only records
// its arrival, and the code that owns the guard decides what to do (the trainer saves a checkpoint
// and stops at the next step; the supervisor of local ranks forwards it to them). The previous
// handlers come back when the guard dies, on every path out, exceptions included.
#pragma once

#include <memory>

namespace nmt {

/// One at a time per process: the record is process-wide (a signal handler may touch nothing else).
class SignalGuard {
 public:
  /// Installs the recording handlers and forgets any signal recorded before.
  SignalGuard();
  ~SignalGuard();
  SignalGuard(const SignalGuard&) = delete;
  SignalGuard& operator=(const SignalGuard&) = delete;

  /// The last signal recorded (SIGINT or SIGTERM), or 0.
  int received() const;
  /// received(), and forgets it (to see the next one).
  int take();

 private:
  struct Saved;
  std::unique_ptr<Saved> saved_;  // the handlers to restore
};

}  // namespace nmt
