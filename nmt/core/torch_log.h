// LibTorch's own log (c10's LOG(WARNING) / LOG(ERROR) and TORCH_WARN, through glog in Debian 12's
// LibTorch 1.13, c10's own logger in 2.6): c10d writes reports there before it throws, e.g.
//   WARNING: Logging before InitGoogleLogging() is written to STDERR
//   E20261126 18:33:31.816646 7331 socket.cpp:860] [c10d] The client socket has timed out ...
// The programs catch those exceptions and say what went wrong in one line of their own, so they
// hide LibTorch's log unless asked for detail (--log-level debug or trace).
#pragma once

namespace nmt {

/// Shows (true) or hides (false) LibTorch's log messages below FATAL, process-wide.
void show_torch_log(bool shown);

}  // namespace nmt
