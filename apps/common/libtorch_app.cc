#include "apps/common/libtorch_app.h"

#include <spdlog/spdlog.h>

#include "apps/common/app_main.h"
#include "nmt/core/logging.h"
#include "nmt/core/torch_log.h"
#include "nmt/kernels/kernels.h"

namespace nmt::app {

int run_with_libtorch(CLI::App& app, int argc, char** argv, const std::function<void()>& body) {
  nmt::show_torch_log(false);
  return run(app, argc, argv, [&] {
    nmt::show_torch_log(nmt::log_level() <= nmt::LogLevel::debug);  // --log-level is parsed by now
    spdlog::debug("CPU kernels: {}", nmt::kernel_capability());  // throws on a bad NMT_CPU_CAPABILITY
    body();
  });
}

}  // namespace nmt::app
