#include "nmt/core/version.h"

#ifndef NMT_VERSION_STRING
#error "NMT_VERSION_STRING must be defined by the build"
#endif

namespace nmt {

std::string version() { return NMT_VERSION_STRING; }

}  // namespace nmt
