// SIGINT and SIGTERM before a program can take them as requests: while nmt-train starts up (loads a
// checkpoint, trains subword models, joins its group) there is nothing to save, and waiting for
// the work in hand could take minutes. An ExitOnSignal ends the process at once, as the default
// action would, but first says so in one line on stderr: what the program was doing and what that
// means for its files. A SignalGuard made while it lives takes the signals over (requests) and
// gives them back when it dies. The temporaries of files being written (AtomicOutputFile) are
// removed first: the files they were to replace stay as they were.
#pragma once

#include <string>

namespace nmt {

/// One at a time per process (the line is process-wide: a signal handler may touch nothing else).
class ExitOnSignal {
 public:
  /// Installs the handlers: SIGINT or SIGTERM writes "PROGRAM: stopped by SIGTERM while DOING;
  /// OUTCOME" to stderr and ends the process with status 128 + signal (the shell's convention).
  ExitOnSignal(const std::string& program, const std::string& doing, const std::string& outcome);
  ~ExitOnSignal();
  ExitOnSignal(const ExitOnSignal&) = delete;
  ExitOnSignal& operator=(const ExitOnSignal&) = delete;

  /// What the line says from now on; no effect when no ExitOnSignal lives (e.g. a Trainer in a test).
  static void now(const std::string& doing, const std::string& outcome);
  /// The line for `signal` as the handler writes it (without the newline), for tests and logs.
  static std::string line(int signal);
};

}  // namespace nmt
