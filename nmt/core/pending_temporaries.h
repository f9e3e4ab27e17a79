// The temporary files AtomicOutputFile is writing, kept where a signal handler can read them:
// ExitOnSignal removes them before it ends the process, so SIGTERM during a write leaves no
// `NAME.tmp.XXXXXX` behind (a kill -9 still can; the next writer of the same name removes it,
// since its lock died with the process).
#pragma once

#include <string>

namespace nmt {

/// Notes a temporary file being written; returns its slot, or -1 when it cannot be noted (a path
/// longer than PATH_MAX, or every slot taken: then only the next writer's clean-up removes it).
int note_pending_temporary(const std::string& path);
/// Forgets slot `slot` (-1: nothing); call once the file is renamed or removed.
void forget_pending_temporary(int slot);
/// Unlinks every file this process noted (not its parent's, after a fork). Async-signal-safe
/// (atomics, getpid, unlink): for signal handlers only.
void remove_pending_temporaries() noexcept;

}  // namespace nmt
