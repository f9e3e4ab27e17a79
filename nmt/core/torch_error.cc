#include "nmt/core/torch_error.h"

#include <c10/util/Exception.h>

namespace nmt {

std::string first_line(const std::exception& error) {
  const auto* torch_error = dynamic_cast<const c10::Error*>(&error);
  const std::string text = torch_error != nullptr ? torch_error->what_without_backtrace() : error.what();
  return text.substr(0, text.find('\n'));
}

std::string torch_error_reason(const std::exception& error) {
  std::string what = first_line(error);
  if (what.rfind("[enforce fail at ", 0) == 0 && what.find("] ") != std::string::npos) {
    what = what.substr(what.find("] ") + 2);
    if (what.find(". ") != std::string::npos) what = what.substr(what.find(". ") + 2);
  }
  return what;
}

}  // namespace nmt
