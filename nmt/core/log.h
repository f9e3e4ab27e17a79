// Internal: the library's logger, writing to stderr (stdout stays free for program output).
// Include only from .cc files; the public face is nmt/core/logging.h.
#pragma once

#include <spdlog/spdlog.h>

namespace nmt {

spdlog::logger& log();

}  // namespace nmt
