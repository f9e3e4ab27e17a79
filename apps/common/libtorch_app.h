// run() for the programs that load models (nmt-train, nmt-translate, nmt-checkpoint, nmt-serve):
// what they need of LibTorch before their work starts. The others (nmt-score, nmt-tokenizer, ...)
// call run() and never load LibTorch.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace nmt::app {

/// As run(), and: LibTorch's own log is hidden while the options are parsed and then shown only
/// at --log-level debug or trace (our one-line errors say what its multi-line reports say), and a
/// bad NMT_CPU_CAPABILITY is refused before `body`, not at the first product (for nmt-train, its
/// first validation).
int run_with_libtorch(CLI::App& app, int argc, char** argv, const std::function<void()>& body);

}  // namespace nmt::app
