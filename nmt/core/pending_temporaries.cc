#include "nmt/core/pending_temporaries.h"

#include <limits.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstring>

namespace nmt {
namespace {

// A slot is free (kSlotFree), being filled by the thread that took it (kSlotFilling), or holds a
// path the handler may read (kSlotReady). Slots are taken round-robin, so a slot freed while a
// handler reads it is not filled again before many others have been: the handler never reads a
// half-written path in practice (a few files are written at once, there are 64 slots).
constexpr int kSlotFree = 0, kSlotFilling = 1, kSlotReady = 2;
constexpr std::size_t kPendingSlots = 64;
struct PendingSlot {
  std::atomic<int> state{kSlotFree};
  pid_t owner = 0;  // the process writing it: a child forked meanwhile inherits the slots, not the file
  char path[PATH_MAX];
};
std::array<PendingSlot, kPendingSlots> g_pending;
std::atomic<std::size_t> g_next_pending{0};

}  // namespace

int note_pending_temporary(const std::string& path) {
  if (path.size() >= PATH_MAX) return -1;
  const std::size_t start = g_next_pending.fetch_add(1);
  for (std::size_t i = 0; i < kPendingSlots; ++i) {
    const std::size_t index = (start + i) % kPendingSlots;
    int expected = kSlotFree;
    if (!g_pending[index].state.compare_exchange_strong(expected, kSlotFilling)) continue;
    std::memcpy(g_pending[index].path, path.c_str(), path.size() + 1);
    g_pending[index].owner = ::getpid();
    g_pending[index].state.store(kSlotReady);
    return static_cast<int>(index);
  }
  return -1;
}

void forget_pending_temporary(int slot) {
  if (slot < 0 || static_cast<std::size_t>(slot) >= kPendingSlots) return;
  g_pending[static_cast<std::size_t>(slot)].state.store(kSlotFree);
}

void remove_pending_temporaries() noexcept {
  for (PendingSlot& slot : g_pending) {
    if (slot.state.load() == kSlotReady && slot.owner == ::getpid()) ::unlink(slot.path);
  }
}

}  // namespace nmt
