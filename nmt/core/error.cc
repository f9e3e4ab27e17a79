#include "nmt/core/error.h"

namespace nmt {

void require_option(bool ok, const std::string& key, const std::string& rule, const std::string& value) {
  if (!ok) throw ConfigError(key + " must be " + rule + ", got " + value);
}

}  // namespace nmt
