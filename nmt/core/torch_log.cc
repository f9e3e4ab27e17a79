#include "nmt/core/torch_log.h"

#include <c10/util/Logging.h>

namespace nmt {

namespace {
constexpr int kFatal = 3;  // glog's and c10's severity FATAL (INFO 0, WARNING 1, ERROR 2)
}  // namespace

void show_torch_log(bool shown) {
  // c10's own threshold, which c10d also reads (its [c10d] messages) in every build; in a build
  // with glog (Debian 12's LibTorch 1.13) glog's threshold too. The levels the process started
  // with (glog reads GLOG_minloglevel from the environment) come back when the log is shown.
  static const int initial = FLAGS_caffe2_log_level;
  FLAGS_caffe2_log_level = shown ? initial : kFatal;
#ifdef C10_USE_GLOG
  static const int initial_glog = FLAGS_minloglevel;
  FLAGS_minloglevel = shown ? initial_glog : kFatal;
#endif
}

}  // namespace nmt
