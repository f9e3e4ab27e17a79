#pragma once

#include <string>

namespace nmt {

/// The toolkit's version ("0.1.0"), as set in the top-level CMakeLists.txt.
std::string version();

}  // namespace nmt
