#include "nmt/core/exit_on_signal.h"

#include <unistd.h>

#include <array>
#include <atomic>
#include <csignal>
#include <cstring>

#include "nmt/core/pending_temporaries.h"

namespace nmt {
namespace {

// The handler may only read memory that nothing frees and call async-signal-safe functions
// (write, unlink, _exit): the lines are written out beforehand into fixed slots, and a new text
// goes to the next slot before the index moves, so a handler never reads a slot being written
// (unless kSlots texts are set while it runs).
constexpr std::size_t kSlots = 8, kLineBytes = 512;
struct Lines {
  char interrupt[kLineBytes];  // SIGINT's line, with its newline
  char terminate[kLineBytes];  // SIGTERM's
};
std::array<Lines, kSlots> g_lines;
std::atomic<std::size_t> g_current{0};
std::atomic<bool> g_installed{false};
std::string g_program;  // touched by the thread that installs the handlers and sets the texts

void set_line(char* out, const std::string& text) {
  const std::size_t n = std::min(text.size(), kLineBytes - 2);  // a long path is cut, the newline kept
  std::memcpy(out, text.data(), n);
  out[n] = '\n';
  out[n + 1] = '\0';
}

std::string compose(int signal, const std::string& doing, const std::string& outcome) {
  return g_program + ": stopped by " + (signal == SIGINT ? "SIGINT" : "SIGTERM") + " while " + doing + "; " + outcome;
}

extern "C" void exit_with_line(int signal) {
  remove_pending_temporaries();  // a file being written: its temporary goes, the file stays as it was
  const Lines& lines = g_lines[g_current.load() % kSlots];
  const char* text = signal == SIGINT ? lines.interrupt : lines.terminate;
  ssize_t ignored = write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
  _exit(128 + signal);
}

struct SavedActions {
  struct sigaction interrupt {}, terminate {};
};
SavedActions g_saved;

}  // namespace

ExitOnSignal::ExitOnSignal(const std::string& program, const std::string& doing, const std::string& outcome) {
  g_program = program;
  g_installed.store(true);
  now(doing, outcome);
  struct sigaction action {};
  action.sa_handler = exit_with_line;
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, SIGINT);  // one line even when both arrive together
  sigaddset(&action.sa_mask, SIGTERM);
  sigaction(SIGINT, &action, &g_saved.interrupt);
  sigaction(SIGTERM, &action, &g_saved.terminate);
}

ExitOnSignal::~ExitOnSignal() {
  g_installed.store(false);
  sigaction(SIGINT, &g_saved.interrupt, nullptr);
  sigaction(SIGTERM, &g_saved.terminate, nullptr);
}

void ExitOnSignal::now(const std::string& doing, const std::string& outcome) {
  if (!g_installed.load()) return;
  const std::size_t next = (g_current.load() + 1) % kSlots;
  set_line(g_lines[next].interrupt, compose(SIGINT, doing, outcome));
  set_line(g_lines[next].terminate, compose(SIGTERM, doing, outcome));
  g_current.store(next);
}

std::string ExitOnSignal::line(int signal) {
  const Lines& lines = g_lines[g_current.load() % kSlots];
  std::string text = signal == SIGINT ? lines.interrupt : lines.terminate;
  if (!text.empty()) text.pop_back();
  return text;
}

}  // namespace nmt
