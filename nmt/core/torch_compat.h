// The few places where LibTorch 1.13 (Debian 12) and 2.x (Debian 13, PyTorch's own builds) need
// help to build alike. Everything else in the toolkit uses APIs that both versions share.
#pragma once

#include <utility>

namespace nmt {

/// F::apply(args...) for a torch::autograd::Function F. GCC 14 inlines LibTorch 2.x's
/// Function::apply (a std::vector<bool>::reserve in custom_function.h) into the caller and then
/// reports a bounds warning there that does not hold (-Warray-bounds, -Wstringop-overflow);
/// silenced here for that call alone.
template <class F, class... Args>
auto apply_autograd_function(Args&&... args) {
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
  return F::apply(std::forward<Args>(args)...);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
}

}  // namespace nmt
